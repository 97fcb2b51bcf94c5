"""The edge's check (pancog/adapter/edge.py): what it reads of a payload and when it refuses one.

The e2e tests show the edge in place (tests/e2e/test_leak_oracle.py, test_transcripts.py); these pin the check
itself on payloads built by hand: listings counted per face, typed cards, names that look like cards, seeds,
sections of a document, and images read through the renderer's record of what they show.
"""

from __future__ import annotations

import io
from collections import Counter

import discord

from pancog.adapter import edge
from pancog.game.actions import GoOnTop, Sit, StartHand
from pancog.game.cards import Card, parse_card, parse_cards
from pancog.game.engine import apply
from pancog.game.rules import Rules
from pancog.game.state import initial_state
from pancog.services.knowledge import Audience, HandView, KnowledgeService, TableKnowledge
from pancog.services.tables import TableConfig, TableService, TableSession
from renderer import HandSnapshot, render_hand_png
from tests.e2e.scenarios import stacked_shoe


def c(text: str) -> Card:
    return parse_card(text)


def knowing(cards: str, *, seed: int | None = None, hands: dict[int, str] | None = None) -> TableKnowledge:
    """An audience that has seen ``cards`` of hand 1 (and of other hands, by number), the seed a secret."""
    views = {1: HandView(1, False, Counter(parse_cards(cards) if cards else ()), seed=seed)}
    for number, seen in (hands or {}).items():
        views[number] = HandView(number, True, Counter(parse_cards(seen)))
    secrets = (str(seed),) if seed is not None else ()
    return TableKnowledge(5, Audience.everyone(), views, (1,), secrets)


def check(text: str, known: TableKnowledge, **kwargs: object) -> edge.Breach | None:
    return edge.breach(edge.payload_of(text), known, **kwargs)  # type: ignore[arg-type]


def test_edge_counts_each_listing_per_face() -> None:
    """Two public 5S may be listed together; three may not; two sentences are two listings."""
    known = knowing("5S 5S 7H")
    assert check("bob melded 5♠ 5♠ 7♥.", known) is None
    found = check("bob holds 5♠ 5S 5♠", known)
    assert found is not None and found.rule == "card" and "5♠ ×3 > 2" in found.detail
    assert check("bob discarded 5♠. alice plucked 5♠. carol discarded 5♠.", known) is None
    assert check("a hand listing: 1 5S, 2 5S, 3 7H", known) is None
    assert check("KH", known) is not None and check("as usual", known) is None


def test_edge_lets_a_person_see_what_he_typed() -> None:
    """An error quoting the cards a player typed is not a leak of them."""
    known = knowing("")
    assert check("You don't hold KH KH.", known) is not None
    echo = edge.typed_cards(["kh Kh"])
    assert echo == Counter({c("KH"): 2})
    assert check("You don't hold KH KH.", known, echo=echo) is None


def test_edge_takes_names_that_look_like_cards_out() -> None:
    """A member called "KS" is a name, not a card (names are taken out before cards are counted)."""
    known = knowing("")
    assert check("KS went on top.", known) is not None
    assert check("KS went on top.", known, names=["KS"]) is None


def test_edge_notation_examples_are_not_cards() -> None:
    """The parse errors' examples ("like 5S or QH") are fixed text."""
    assert check("'x' is not a card. Write a rank and a suit, like 5S or QH.", knowing("")) is None


def test_edge_refuses_a_seed_as_a_whole_number_only() -> None:
    """A production seed (19 digits) anywhere; a number that merely contains it is not it; a short test seed only
    as ``seed=N``."""
    long_seed = 1234567890123456789
    known = knowing("", seed=long_seed)
    found = check(f"start seed={long_seed}", known)
    assert found is not None and found.rule == "seed"
    assert check(f"deal {long_seed}.", known) is not None
    assert check(f"id 9{long_seed}9", known) is None
    short = knowing("", seed=7)
    assert check("7 chips", short) is None and check("start seed=7 first=0", short) is not None


def test_edge_checks_each_section_of_a_document_against_its_hand() -> None:
    """A transcript lists every hand: each section is checked against what the audience may know of that hand."""
    known = knowing("5S", hands={2: "KH KH"})
    good = edge.Document("t.txt", [(1, "Hand 1: 5♠.\n"), (2, "Hand 2: K♥ K♥.\n")])
    assert edge.breach(edge.payload_of(file=good), known) is None
    bad = edge.Document("t.txt", [(1, "Hand 1: K♥ K♥.\n"), (2, "Hand 2: 5♠.\n")])
    found = edge.breach(edge.payload_of(file=bad), known)
    assert found is not None and "K♥" in found.detail


def test_edge_reads_embeds_components_alt_text_files_and_choices() -> None:
    """Everything a payload shows is read: embed fields, select options, button labels, alt text, text files,
    autocomplete choices."""
    known = knowing("")
    embed = discord.Embed(title="t").add_field(name="f", value="QD")
    view = discord.ui.View()
    view.add_item(discord.ui.Select(options=[discord.SelectOption(label="Meld JD", value="x")]))
    view.add_item(discord.ui.Button(label="Take 4C"))
    text_file = discord.File(io.BytesIO(b"dealt 2H"), filename="a.txt", description="alt 3S")
    choice = discord.app_commands.Choice(name="6D", value="6D")
    payload = edge.payload_of(None, embed=embed, view=view, file=text_file, choices=[choice])
    shown = " ".join(text for text, _ in payload.texts)
    for token in ("QD", "JD", "4C", "2H", "3S", "6D"):
        assert token in shown
    assert edge.breach(payload, known) is not None


def test_edge_reads_components_v2_layouts() -> None:
    """A Components V2 message shows its words in text displays (also inside containers and sections), its images'
    alt text in galleries and thumbnails, and labels in nested action rows: all of it is read, so a hidden card
    cannot leave through a layout."""
    known = knowing("")
    layout = discord.ui.LayoutView()
    box: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container()
    box.add_item(discord.ui.TextDisplay("Bo holds QD"))
    box.add_item(
        discord.ui.Section(
            discord.ui.TextDisplay("next: JD"), accessory=discord.ui.Thumbnail("attachment://a.png", description="4C")
        )
    )
    box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://t.png", description="alt 3S")))
    row: discord.ui.ActionRow[discord.ui.LayoutView] = discord.ui.ActionRow()
    row.add_item(discord.ui.Button(label="Take 6D", custom_id="take"))
    box.add_item(row)
    layout.add_item(box)
    shown = " ".join(text for text, _ in edge.payload_of(None, view=layout).texts)
    for token in ("QD", "JD", "4C", "3S", "6D"):
        assert token in shown, token
    for token in ("attachment://", "take"):  # addresses and custom_ids are nobody's reading
        assert token not in shown
    assert edge.breach(edge.payload_of(None, view=layout), known) is not None
    quiet = discord.ui.LayoutView()
    quiet.add_item(discord.ui.TextDisplay("Ana to play"))
    assert edge.breach(edge.payload_of(None, view=quiet), known) is None


def test_edge_reads_the_board_layout_and_its_image() -> None:
    """The board's V2 layout: its words, its image's alt text (in the gallery) and the image's cards are read."""
    from pancog.adapter.board import TableView

    png = render_hand_png(HandSnapshot(cards=parse_cards("KH KH 2C")))
    view = TableView(9, ["draw", "hand"], "Ana to play", "the table: KS")
    payload = edge.payload_of(None, view=view, attachments=[discord.File(io.BytesIO(png), filename="table.png")])
    shown = " ".join(text for text, _ in payload.texts)
    assert "Ana to play" in shown and "KS" in shown and "Draw" in shown
    assert sorted(map(str, payload.frames[0])) == ["2C", "KH", "KH"]
    assert edge.breach(payload, knowing("KH KH 2C")) is not None  # the alt text's KS is nobody's card yet
    assert edge.breach(payload, knowing("KH KH 2C KS")) is None


def test_edge_reads_a_modal_s_texts() -> None:
    """A modal's title, labels and pre-filled values are payload too."""
    form = discord.ui.Modal(title="Meld QS")
    form.add_item(discord.ui.TextInput(label="Cards", default="KD KD"))
    shown = " ".join(text for text, _ in edge.payload_of(modal=form).texts)
    assert "QS" in shown and "KD KD" in shown and "Cards" in shown


def test_edge_reads_the_cards_an_image_shows_from_the_image() -> None:
    """A PNG from the renderer says which faces it shows: the edge counts them like a listing."""
    png = render_hand_png(HandSnapshot(cards=parse_cards("KH KH 2C")))
    payload = edge.payload_of(file=discord.File(io.BytesIO(png), filename="hand.png"))
    assert sorted(map(str, payload.frames[0])) == ["2C", "KH", "KH"]
    assert edge.breach(payload, knowing("KH 2C")) is not None
    assert edge.breach(payload, knowing("KH KH 2C")) is None


def test_edge_about_a_closed_table_uses_its_last_state() -> None:
    """A replay of a table that closed is checked against the table as its log ended."""
    state = initial_state(table_id=3)
    assert edge.About(state=state).table is state
    assert edge.STATIC.static and edge.About().table is None


def test_edge_checks_a_payload_against_the_table_it_was_drawn_from() -> None:
    """A hand DM or a board waits for its render; by the time it goes the table may be hands further on. It is
    checked against the table as it was drawn from: Ana's hand of hand 1 is hers then, and not a card of the
    table two hands later."""
    ana, bo = 11, 12
    ana_hand, bo_hand = "KH KH 2C 3C 4C 6D 7D JD QH QS", "5S AC 2D 3D 4H 6H 7H JS QS KS"
    state = initial_state(Rules(), table_id=7)
    for action in (Sit(player_id=ana, buy_in=100), Sit(player_id=bo, buy_in=100)):
        state = apply(state, action).state
    drawn = apply(state, StartHand(shoe=stacked_shoe([ana_hand, bo_hand]), first_seat=0)).state
    later = drawn
    for _hand in range(2):  # both sluff twice: hand 1 ends, hand 2 is dealt and ends, hand 3 is dealt
        later = apply(apply(later, GoOnTop(seat=0)).state, GoOnTop(seat=1)).state
        later = apply(later, StartHand(seed=5, first_seat=0)).state
    assert drawn.hand is not None and later.hand is not None and later.hand.hand_no == 3
    session = TableSession(7, 1, 2, ana, TableConfig(), later)
    guard = edge.Guard(KnowledgeService(), TableService.__new__(TableService), lambda _s, _g: {})
    payload = edge.payload_of("Hand 1: K♥ K♥ 2♣ 3♣ 4♣ 6♦ 7♦ J♦ Q♥ Q♠")

    def checked(about: edge.About) -> edge.Breach | None:
        return edge.breach(payload, guard.knowledge_for(about, Audience.person(ana)), hands=about.hands or None)

    assert checked(edge.about(session, state=drawn)) is None
    assert edge.about(session, state=drawn).table is drawn and edge.about(session).table is later
    found = checked(edge.about(session))  # against the table now, her old hand is no longer hers to be shown
    assert found is not None and found.rule == "card"
