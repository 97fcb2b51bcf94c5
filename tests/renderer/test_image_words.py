"""Images use the catalogs for their few words: a snapshot carries its language across to the render worker (a
process that does not share the task's context variable); card ranks and suits are not words."""

from __future__ import annotations

import dataclasses
import pickle

from pancog.game import i18n
from renderer import labels
from renderer.hand import hand_text, render_hand_png
from renderer.outcome import outcome_text, render_outcome_png
from renderer.samples import sample_hand, sample_outcome, sample_table
from renderer.table import render_table_png, table_text


def test_the_labels_follow_the_language() -> None:
    assert (labels.stock(), labels.discards(), labels.your_hand()) == ("Stock", "Discards", "Your hand")
    with i18n.speaking("es"):
        assert (labels.stock(), labels.discards(), labels.your_hand()) == ("Mazo", "Descartes", "Tu mano")
        assert labels.to_play(name="ana") == "le toca a ana"
    with i18n.speaking("tl"):
        assert labels.drawn_tag(label="pluck") == "BUNOT"


def test_a_snapshot_draws_its_own_language_wherever_it_is_rendered() -> None:
    table = sample_table(4, 6)
    spanish = dataclasses.replace(table, lang="es")
    assert pickle.loads(pickle.dumps(spanish)).lang == "es"  # noqa: S301 - our own bytes, as a render process gets them
    assert render_table_png(spanish) != render_table_png(table)  # the same table, other words
    with i18n.speaking("es"):  # the task's language does not matter: the snapshot's does
        assert render_table_png(table) == render_table_png(dataclasses.replace(table, lang="en"))
    assert "Mazo:" in table_text(spanish) and "Stock:" in table_text(table)
    hand = dataclasses.replace(sample_hand(), lang="tl")
    assert hand_text(hand).startswith("Baraha mo") and render_hand_png(hand) != render_hand_png(sample_hand())
    outcome = dataclasses.replace(sample_outcome(), lang="es")
    assert "Neto de la mano" in outcome_text(outcome)
    assert render_outcome_png(outcome) != render_outcome_png(sample_outcome())
