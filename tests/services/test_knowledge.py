"""What an audience may know of a table (pancog/services/knowledge.py): pure functions over engine states.

Hands are dealt from stacked shoes in notation, so each test knows exactly which copies of a face are public and
which are hidden: with eight decks the same face is often both.
"""

from __future__ import annotations

from collections import Counter

from pancog.game import engine
from pancog.game.actions import Action, FloorFoul, GoOnTop, Knock, Sit, StartHand
from pancog.game.cards import Card, parse_card, parse_cards
from pancog.game.rules import Rules
from pancog.game.state import TableState, initial_state
from pancog.services.knowledge import (
    Audience,
    KnowledgeService,
    held_cards,
    public_cards,
    table_knowledge,
)
from tests.e2e.scenarios import stacked_shoe

ANA, BO, CY, MOD = 11, 12, 13, 99
# Ana holds two 5S; Bo one; the stock's first card (the upcard, when the preset turns one) and the third are 5S too
ANA_HAND = "5S 5S 2C 3C 4C 6D 7D JD QH KH"
BO_HAND = "5S AC 2D 3D 4H 6H 7H JS QS KS"
STOCK = "5S 7C 5S 6C"


def apply(state: TableState, *actions: Action) -> TableState:
    for action in actions:
        state = engine.apply(state, action).state
    return state


def dealt(*, seed: int | None = None) -> TableState:
    """Ana (seat 0) and Bo (seat 1) seated, the stacked hand dealt (or a seeded one)."""
    state = initial_state(Rules(), table_id=7)
    state = apply(state, Sit(player_id=ANA, buy_in=100), Sit(player_id=BO, buy_in=100))
    if seed is not None:
        return apply(state, StartHand(seed=seed, first_seat=0))
    return apply(state, StartHand(shoe=stacked_shoe([ANA_HAND, BO_HAND], STOCK), first_seat=0))


def card(text: str) -> Card:
    return parse_card(text)


def test_knowledge_a_bystander_knows_the_public_table_only() -> None:
    """Everyone: the discards, the melds, the card in play — never a card in a hand."""
    state = dealt()
    hand = state.hand
    assert hand is not None
    known = table_knowledge(state, Audience.everyone())
    allowed = known.allowed()
    assert allowed == public_cards(hand)
    assert allowed[card("KH")] == 0 and allowed[card("KS")] == 0  # in Ana's and Bo's hands only


def test_knowledge_counts_copies_of_a_face_public_and_hidden_at_once() -> None:
    """Eight decks: 5S may be public (the upcard) while Ana holds two more and Bo one. A bystander may see as many
    5S at once as are public; Ana that many plus her two; Bo plus his one."""
    state = dealt()
    hand = state.hand
    assert hand is not None
    public = public_cards(hand)[card("5S")]
    everyone = table_knowledge(state, Audience.everyone()).allowed()
    ana = table_knowledge(state, Audience.person(ANA)).allowed()
    bo = table_knowledge(state, Audience.person(BO)).allowed()
    assert everyone is not None and ana is not None and bo is not None
    assert (everyone[card("5S")], ana[card("5S")], bo[card("5S")]) == (public, public + 2, public + 1)
    assert Counter(held_cards(hand, 0)) == Counter(parse_cards(ANA_HAND))


def test_knowledge_a_watcher_sees_the_shared_hand_while_it_is_in_progress() -> None:
    """A watch grant adds the sharing player's cards, for the hand in progress only."""
    state = dealt()
    service = KnowledgeService(watching=lambda _table, user: (BO,) if user == CY else ())
    watcher = service.of(state, Audience.person(CY)).allowed()
    assert watcher is not None and watcher[card("KS")] == 1 and watcher[card("KH")] == 0
    over = apply(state, GoOnTop(seat=0), GoOnTop(seat=1))  # both sluff: the hand ends
    assert over.hand is None and over.last_hand is not None
    after = service.of(over, Audience.person(CY)).allowed()
    assert after is not None and after[card("KS")] == 0


def test_knowledge_moderators_see_a_deal_whole_unless_they_play_in_it() -> None:
    """A moderator not dealt in may see the live deal whole (floor rulings); dealt in, only what a player sees;
    after the hand, always whole. The seed is a secret exactly when the deal is not known whole."""
    state = dealt(seed=123456789)
    hand_no = state.hand_no
    outside = table_knowledge(state, Audience.moderator(MOD))
    assert outside.hands[hand_no].full and outside.allowed() is None and outside.secrets == ()
    playing = table_knowledge(state, Audience.moderator(ANA))
    assert not playing.hands[hand_no].full and playing.allowed() is not None
    assert playing.secrets == ("123456789",)
    over = apply(state, GoOnTop(seat=0), GoOnTop(seat=1))
    assert table_knowledge(over, Audience.moderator(ANA)).allowed() is None
    assert table_knowledge(over, Audience.person(ANA)).secrets == ("123456789",)


def test_knowledge_a_revealed_hand_is_whole_for_its_players_once_over() -> None:
    """Consent to reveal lets the players of a finished hand see it whole; never the hand in progress, never a
    bystander."""
    state = dealt(seed=42424242)
    revealed = {ANA, BO}
    live = table_knowledge(state, Audience.person(ANA), revealed=lambda _n: revealed)
    assert not live.hands[state.hand_no].full
    over = apply(state, Knock(seat=0), GoOnTop(seat=1))
    for user in (ANA, BO):
        assert table_knowledge(over, Audience.person(user), revealed=lambda _n: revealed).allowed() is None
    stranger = table_knowledge(over, Audience.person(CY), revealed=lambda _n: revealed)
    assert stranger.allowed() is not None and stranger.secrets == ("42424242",)


def test_knowledge_a_payload_about_several_hands_never_counts_as_whole() -> None:
    """One listing cannot say which hand it is from: a scope of several hands uses the audience's ordinary view
    of each, even when one of them is known whole."""
    state = dealt(seed=5)
    over = apply(state, GoOnTop(seat=0), GoOnTop(seat=1))
    again = apply(over, StartHand(seed=6, first_seat=0))
    known = table_knowledge(again, Audience.moderator(ANA))  # the last hand whole, the live one as a player
    assert known.hands[1].full and not known.hands[2].full
    assert known.allowed((1,)) is None
    assert known.allowed((1, 2)) is not None and known.allowed() is not None


def test_knowledge_a_fouled_player_keeps_knowing_his_dead_cards() -> None:
    """A dead hand's cards go to the hidden dead pile; its owner is still credited with them (a replay of his own
    earlier steps may show them), nobody else is."""
    state = apply(dealt(), Knock(seat=0), Knock(seat=1))
    fouled = apply(state, FloorFoul(target=0))
    hand = fouled.hand
    assert hand is not None
    mine = table_knowledge(fouled, Audience.person(ANA)).allowed()
    theirs = table_knowledge(fouled, Audience.person(BO)).allowed()
    assert mine is not None and theirs is not None
    assert mine[card("KH")] == 1 and theirs[card("KH")] == 0


def test_knowledge_the_public_count_of_a_hand_state_is_shared_but_never_changed_by_an_audience() -> None:
    """The public count is kept per hand state (every payload of an action checks the same ones); each audience
    adds its own cards to a copy: Ana's hand asked for first does not leak into the bystander's view after it."""
    state = dealt()
    hand = state.hand
    assert hand is not None
    first = public_cards(hand)
    first[card("KH")] += 5  # a caller's changes stay its own
    assert public_cards(hand)[card("KH")] == 0 and public_cards(hand) is not public_cards(hand)
    for _ in range(3):
        ana = table_knowledge(state, Audience.person(ANA)).allowed()
        everyone = table_knowledge(state, Audience.everyone()).allowed()
        assert ana is not None and everyone is not None
        assert ana[card("KH")] == 1 and everyone[card("KH")] == 0 and everyone == public_cards(hand)
    later = apply(state, Knock(seat=0))  # a new state, counted afresh (Ana's declaration shows no card)
    assert later.hand is not None and public_cards(later.hand) == public_cards(hand)
