"""The leak oracle over random games: at least 200 random hands, every payload checked, no leak found.

Each game is one table of random deals (``PAN_DEAL_SEED``) played through the fake Discord by seated players, with a
member they may share their hand with, a bystander and a moderator using random commands, buttons, selects and
autocompletes of every feature meanwhile (``tests/e2e/leak_game.py``). :class:`tests.e2e.oracle.Oracle` knows every
hidden card and every seed and checks each payload the fake accepted against what its audience may know at that
moment. The planted-leak tests show the oracle is not blind: with the bot's own check switched off, a hidden card
put on the public board, an image of another player's hand, and a seed in a transcript are each reported.
"""

from __future__ import annotations

import random

import pytest

from pancog.adapter import edge
from pancog.adapter.presenters import table as table_presenters
from pancog.adapter.presenters.common import WITHHELD
from pancog.services.replay import ReplayService
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.leak_game import LeakGame

GAMES = 10
HANDS_PER_GAME = 20  # GAMES x HANDS_PER_GAME >= 200 hands


async def game(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch, seed: int) -> LeakGame:
    monkeypatch.setenv("PAN_DEAL_SEED", str(7000 + seed))
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    pan = await pan_factory(members=5)
    rng = random.Random(seed)
    played = LeakGame(pan, rng, players=2 + seed % 2, computer=seed % 3 == 0)
    await played.setup()
    return played


@pytest.mark.parametrize("seed", range(GAMES))
async def test_leak_oracle_finds_no_leak_in_random_games(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Random hands, random commands from players, a watcher, a bystander and a moderator: every payload is
    checked against what its audience may know when it was sent, and none tells anyone too much."""
    played = await game(pan_factory, monkeypatch, seed)
    await played.play(HANDS_PER_GAME)
    oracle = played.oracle
    assert oracle.leaks == [], "\n".join(map(str, oracle.leaks[:10]))
    assert oracle.truth.finished >= HANDS_PER_GAME
    assert len(oracle.truth.played) >= HANDS_PER_GAME // 3  # not only hands everyone sat out
    assert oracle.checked > 10 * HANDS_PER_GAME and oracle.images > HANDS_PER_GAME and oracle.listings > 0


def _plant_hidden_cards_on_the_board(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted bug: the public board's line lists the hidden hand of the player to act."""
    original = table_presenters.board_text

    def leaky(state, names, **kwargs):  # type: ignore[no-untyped-def]
        text = original(state, names, **kwargs)
        hand = state.hand
        if hand is None or hand.phase is None:
            return text
        seat = next((p.seat for p in hand.players if p is not None and p.hand), None)
        if seat is None:
            return text
        cards = " ".join(c.pretty for c in hand.players[seat].hand)
        return f"{text} Holding: {cards}"

    monkeypatch.setattr("pancog.adapter.board.board_text", leaky)


async def test_oracle_reports_a_planted_leak_of_hidden_cards(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the bot's own check switched off, a hidden hand planted on the public board is reported."""
    played = await game(pan_factory, monkeypatch, 1)
    monkeypatch.setattr(edge, "breach", lambda *args, **kwargs: None)  # the edge lets everything through
    _plant_hidden_cards_on_the_board(played.pan, monkeypatch)
    await played.play(1)
    leaks = played.oracle.leaks
    assert leaks and all(leak.rule == "card" and leak.audience == "everyone" for leak in leaks), leaks[:3]


async def test_oracle_reports_a_planted_image_of_a_hidden_hand(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the bot's own check switched off, a board image drawing a hidden hand as a meld is reported (the
    image's own record of what it drew, not its text)."""
    from pancog.adapter.presenters import common
    from renderer import MeldSnapshot

    played = await game(pan_factory, monkeypatch, 2)
    monkeypatch.setattr(edge, "breach", lambda *args, **kwargs: None)
    original = table_presenters.table_snapshot

    def leaky(state, names, **kwargs):  # type: ignore[no-untyped-def]
        snap = original(state, names, **kwargs)
        hand = state.hand
        holder = next((p for p in hand.players if p is not None and p.hand), None) if hand is not None else None
        if holder is None or not snap.seats:
            return snap
        import dataclasses

        extra = MeldSnapshot(index=99, cards=holder.hand, value=0)
        seat = dataclasses.replace(snap.seats[0], melds=(*snap.seats[0].melds, extra))
        return dataclasses.replace(snap, seats=(seat, *snap.seats[1:]))

    monkeypatch.setattr("pancog.adapter.board.table_snapshot", leaky)
    assert common  # the presenters stay importable with the patch
    await played.play(1)
    leaks = played.oracle.leaks
    assert any(leak.rule == "card" and "an image shows" in leak.detail for leak in leaks), leaks[:3]


async def test_oracle_reports_a_planted_seed_in_a_transcript(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the bot's own check switched off, a transcript that carries the deal's seed is reported — here
    the machine notation handed to every member, as the bot did before this check."""
    played = await game(pan_factory, monkeypatch, 3)
    monkeypatch.setattr(edge, "breach", lambda *args, **kwargs: None)

    async def everyones_notation(self, table_id, viewer_id, *, full=lambda _n: False):  # type: ignore[no-untyped-def]
        return await original(self, table_id, viewer_id, full=lambda _n: True)

    original = ReplayService.records
    monkeypatch.setattr(ReplayService, "records", everyones_notation)
    pan = played.pan
    await pan.slash(played.players[0], "pan start")
    await pan.slash(played.bystander, "pan history", transcript=True)
    leaks = played.oracle.leaks
    assert any(leak.rule == "card" and leak.audience == f"user {played.bystander.id}" for leak in leaks), leaks[:3]
    seed = pan.session().state.hand.seed
    monkeypatch.setattr(
        "pancog.adapter.replay_cog.transcript_intro",
        lambda title, viewer, *, moderator: f"{title} (deal {seed})\n",
    )
    await pan.slash(played.bystander, "pan history", transcript=True)
    assert any(leak.rule == "seed" for leak in played.oracle.leaks), played.oracle.leaks[-3:]


async def test_the_edge_withholds_a_planted_leak_and_says_so(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's own check on: the same planted board leak is never sent (fail closed), each refusal is logged at
    ERROR with the table and the rule, and the oracle sees no leak."""
    played = await game(pan_factory, monkeypatch, 4)
    _plant_hidden_cards_on_the_board(played.pan, monkeypatch)
    pan = played.pan
    await pan.slash(played.players[0], "pan start")
    logged = [r.getMessage() for r in pan.h.errors.records if r.name == "pan.edge"]
    pan.h.forgive()
    assert logged and all("payload withheld" in line and "rule=card" in line for line in logged), logged
    assert f"table={pan.session().table_id}" in logged[0]
    assert played.oracle.leaks == []
    # an answer that would leak (here: the deal's seed in /pan history's note) is replaced by the safe sentence
    seed = pan.session().state.hand.seed
    monkeypatch.setattr("pancog.adapter.replay_cog.history_files_note", lambda *, machine, hands: f" (deal {seed})")
    reply = await pan.slash(played.bystander, "pan history")
    assert WITHHELD not in reply.text
    reply = await pan.slash(played.bystander, "pan history", transcript=True)
    pan.h.forgive()
    assert reply.text == WITHHELD and not reply.files
    assert played.oracle.leaks == []


def test_oracle_listings_count_copies_within_one_run_of_cards() -> None:
    """The oracle's reading of text: a run of cards is one listing (counted per face); a word or a full stop
    between cards starts another; notation and suit symbols are both cards; ``as`` is a word."""
    from tests.e2e.oracle import listings

    found = [dict(c) for c in listings("alice melded 5♠ 5S 5♠, then discarded 5♠. Hand: 1 AC, 2 AC as AS")]
    assert found == [{"5S": 3}, {"5S": 1}, {"AC": 2}, {"AS": 1}]
