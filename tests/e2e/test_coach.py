"""The practice coach and "what you would collect if you went out now", through Discord on stacked hands.

A practice table deals its first hand at once (seeded); the person sluffs it away (the computer, alone in, takes
the tops), then the stacked hand is dealt with Start.
"""

from __future__ import annotations

import pytest

from pancog.game import engine
from pancog.services.bots import computer_name
from pancog.services.coach import HandReview
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.privacy import HandRecorder, assert_private
from tests.e2e.scenarios import TWO_A, TWO_SHOE, stacked_shoe
from tests.fakediscord.models import FakeMessage, FakeUser

# The computer's hand: two made melds (so it knocks), nothing the stock's 6S can join (so it throws it).
KNOCKER = "JS QS KS 4H 5H 6H 7D 2D 2H QC"


@pytest.fixture(autouse=True)
def fast_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")


async def practice_between_hands(pan: Pan, me: FakeUser, opponents: int = 1) -> int:
    """/pan practice against computers, the first (seeded) hand sluffed away; returns the person's seat."""
    await pan.slash(me, "pan practice", opponents=opponents)
    seat = pan.session().seat_of(me.id)
    for _ in range(40):
        state = pan.session().state
        if state.hand is None:
            break
        assert engine.to_act(state) == seat, "the seeded first hand waits for the person's declaration"
        await pan.click(me, pan.board(), "Sluff")
    assert pan.session().state.hand is None
    return seat


def notes_to(pan: Pan, user: FakeUser) -> list[FakeMessage]:
    """The coach's private notes after a hand (ephemeral followups to ``user``)."""
    return [
        m
        for m in pan.h.fake.messages.values()
        if m.ephemeral and m.visible_to == user.id and m.content.startswith("**Coach, hand")
    ]


async def test_the_coach_explains_the_top_plays_and_names_a_better_meld(pan_factory: PanFactory) -> None:
    """Practice hand: after the pluck of 4C My hand says why the rope A♣ 2♣ 3♣ 4♣ ranks first (4 cards, a chip
    now) and what going out now would collect; the person melds 2♣ 3♣ 4♣ instead, goes out on his next turn, and
    is told privately, once the hand is over, that A♣ 2♣ 3♣ would have collected a chip. Between hands, My hand
    repeats the note."""
    pan = await pan_factory()
    me = pan.users[0]
    recorder = HandRecorder()
    pan.rt.tables.subscribe(recorder)
    seat = await practice_between_hands(pan, me)
    pan.stack(stacked_shoe([TWO_A, KNOCKER], "4C 6S 5C", filler="QD"), first_seat=seat)  # dealt from the person
    await pan.click(me, pan.board(), "Start")
    reply = await pan.click(me, pan.board(), "Knock")
    assert pan.session().state.hand is not None
    assert engine.to_act(pan.session().state) == seat, "the computer knocked too"
    panel = await pan.slash(me, "draw")
    assert private_to(panel, me)
    text = panel.text
    assert "**Coach**: why the top plays rank where they do" in text
    first = next(line for line in text.splitlines() if line.startswith("1. "))
    assert first.startswith("1. Meld A♣ 2♣ 3♣ with the drawn card") and "melds 4 cards; collects 1 chip now" in first
    second = next(line for line in text.splitlines() if line.startswith("2. "))
    assert second.startswith("2. Meld 2♣ 3♣ with the drawn card") and "melds 3 cards" in second
    assert "% of the unseen cards would be a hit for you" in first
    assert "If you went out now: " in text and "the tops" in text  # the board is empty: the tops only
    await pan.slash(me, "meld", cards="2C 3C")
    await pan.slash(me, "meld", cards="4D 5D 6D")
    await pan.slash(me, "meld", cards="JH QH KH")
    reply = await pan.slash(me, "discard", card="7C")
    assert engine.to_act(pan.session().state) == seat, "the computer threw the 6S"
    panel = await pan.slash(me, "draw")  # 5C: it and the A♣ go on meld 1, and the hand is out
    assert "Going out now (Add A♣ to meld 1" in panel.text
    outs = [ln for ln in panel.text.splitlines() if ln.startswith("Going out now")]
    assert outs and "🤖 Normal bot 1" in outs[0]
    reply = await pan.slash(me, "add", meld=1, cards="AC")
    assert "went out" in reply.text
    assert pan.session().state.hand is None
    (note,) = notes_to(pan, me)
    assert private_to_message(note, me)
    assert note.content.startswith("**Coach, hand 2**")
    assert "Turn 1: Meld A♣ 2♣ 3♣ with the drawn card would have collected 1 chip" in note.content
    assert "you played Meld 2♣ 3♣ with the drawn card (0 chips)" in note.content
    (posted,) = [c for c in pan.h.fake.calls if c.method == "POST" and "**Coach, hand" in str(c.payload)]
    assert posted.route.startswith("POST /webhooks/") and not posted.global_limit  # on his token: not counted
    review = pan.rt.coach.last(pan.session().table_id, me.id) if pan.rt.coach else None
    assert isinstance(review, HandReview) and review.seat == seat and review.misses
    between = await pan.slash(me, "hand")  # between hands: no My hand button, the command still answers
    assert private_to(between, me) and "Turn 1: Meld A♣ 2♣ 3♣" in between.text
    assert assert_private(pan.h.fake, recorder) >= 2
    await pan.click(me, pan.board(), "Start")  # the next deal: the note is done with
    assert pan.rt.coach is not None and pan.rt.coach.last(pan.session().table_id, me.id) is None
    late = await pan.rt.coach.review(pan.session(), 2, me.id)  # a review that ends after the next deal
    assert late is not None and late.misses == review.misses
    assert pan.rt.coach.last(pan.session().table_id, me.id) is None, "kept for a hand already replaced"


def private_to_message(message: FakeMessage, user: FakeUser) -> bool:
    return message.ephemeral and message.visible_to == user.id


async def test_the_coach_names_an_out_card_given(pan_factory: PanFactory) -> None:
    """The computer goes flat on its first turn; the person plucks 5C (no use to him) and throws it; the computer
    takes it as its option card and goes out: the note says that discard was the card it went out with."""
    pan = await pan_factory()
    me = pan.users[0]
    seat = await practice_between_hands(pan, me)
    bot = 1 - seat
    junk = "JS KS 4H 6H JD 3D 5H 7D 2H QC"
    pan.stack(stacked_shoe([TWO_A, junk], "4C 5C 6S", filler="QD"), first_seat=bot)  # dealt from the computer
    await pan.click(me, pan.board(), "Start")
    await pan.click(me, pan.board(), "Knock")
    state = pan.session().state
    assert state.hand is not None and engine.to_act(state) == seat, "the computer knocked, played and threw"
    bot_melds = state.hand.players[bot]
    assert bot_melds is not None and not bot_melds.hand  # flat
    await pan.slash(me, "draw")
    await pan.slash(me, "discard", card="5C")
    assert pan.session().state.hand is None, "the computer took the 5C and went out"
    (note,) = notes_to(pan, me)
    assert "Your discard 5♣ was the card 🤖 Normal bot 1 went out with." in note.content


async def test_the_coach_names_a_force_not_taken(pan_factory: PanFactory) -> None:
    """Three seats, dealt from the computer before the person: it plucks 4C and melds A♣ 2♣ 3♣ 4♣; the person
    plucks K♥ and throws it; the computer after him cannot use the 5C it plucks and must throw it, which fits the
    first computer's rope: the person could force it on him, lets the chance pass, and the note says so."""
    pan = await pan_factory()
    me = pan.users[0]
    seat = await practice_between_hands(pan, me, opponents=2)
    before = (seat - 1) % 3
    roper_seat = pan.session().state.seat(before)
    assert roper_seat is not None
    roper_name = computer_name(roper_seat.player_id)
    roper = "AC 2C 3C KD 2D 3H 6H 7S JD 5S"
    mine = "5D 5H 4S 6C JC KC QH 2S 7D 4H"
    pan.stack(stacked_shoe([roper, mine, KNOCKER], "4C KH 5C", filler="QD"), first_seat=before)
    await pan.click(me, pan.board(), "Start")
    await pan.click(me, pan.board(), "Knock")
    await pan.slash(me, "draw")
    await pan.slash(me, "discard", card="KH")
    for _ in range(60):  # the person throws every card he draws until the hand is over
        state = pan.session().state
        if state.hand is None:
            break
        assert engine.to_act(state) == seat, state.hand
        drawn = await pan.slash(me, "draw")
        assert drawn.text
        card = engine.observe(pan.session().state, seat).drawn
        assert card is not None
        await pan.slash(me, "discard", card=str(card))
    assert pan.session().state.hand is None
    (note,) = notes_to(pan, me)
    assert f"You could have forced 5♣ on {roper_name}: it paid them nothing" in note.content, note.content


async def test_my_hand_says_what_going_out_now_collects_at_every_table_but_coaches_only_practice(pan: Pan) -> None:
    """A table of people: the line "If you went out now" (from the engine's settlement: each payer, the tops) on
    My hand; no coach there (it would be coaching)."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C")
    reply = await pan.click(a, pan.board(), "My hand")
    state = pan.session().state
    moves = engine.going_out_pay(state, 0)
    by_b = sum(m.amount for m in moves if m.payer == 1)
    tops = sum(m.amount for m in moves if m.payer != 1)
    total = by_b + tops
    assert by_b > 0 and tops == state.singles_tops
    line = next(ln for ln in reply.text.splitlines() if ln.startswith("If you went out now"))
    assert line == (
        f"If you went out now: {total} chips (player2 {by_b} chip{'s' if by_b != 1 else ''}, the tops {tops} "
        f"chip{'s' if tops != 1 else ''})."
    )
    assert "**Coach**" not in reply.text
    other = await pan.click(b, pan.board(), "My hand")
    assert "If you went out now" in other.text  # b is in action too (no board yet: the tops only)
