"""HandTally digests agree with the engine: nets equal the stack changes, codes round-trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pancog.ai import make_player
from pancog.ai.evaluate import made_cards
from pancog.ai.selfplay import play_hand
from pancog.game.actions import Sit
from pancog.game.engine import apply
from pancog.game.events import CardsDealt, ChipReason, ChipsMoved, Event, HandStarted, Melded
from pancog.game.rules import Rules
from pancog.game.state import initial_state
from pancog.services.league import HandDigest, HandTally, PlayerLine, TourneyDigest
from pancog.services.league.digest import decode


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 5))
def test_digest_matches_the_engine(seed: int, seats: int) -> None:
    """Per player: net = the stack change over the hand, condition chips and count = the CONDITION moves and
    paying meld plays, won = the hand's winner, made = the made cards of his dealt hand, position = his place in
    the rotation from the first to declare; flows between players sum to the chips moved seat to seat."""
    state = initial_state(Rules(), table_id=3)
    users = [900 + i for i in range(seats)]
    for seat, user in enumerate(users):
        state = apply(state, Sit(player_id=user, buy_in=5000, seat=seat)).state
    tally = HandTally(3)
    seen: list[Event] = []
    digests: list[HandDigest] = []

    def feed(events: tuple[Event, ...] | list[Event]) -> None:
        seen.extend(events)
        done = tally.feed(state, list(events))
        if done is not None:
            digests.append(done)

    result = play_hand(state, [make_player("easy") for _ in users], seed=seed, on_events=feed)
    assert len(digests) == 1
    digest = digests[0]
    by_user = {p.user_id: p for p in digest.players}
    for seat, user in enumerate(users):
        line = by_user[user]
        assert line.net == result.deltas[seat]
        cond = sum(
            e.amount for e in seen if isinstance(e, ChipsMoved) and e.payee == seat and e.reason is ChipReason.CONDITION
        )
        assert line.condition_chips == cond
        assert line.conditions == sum(1 for e in seen if isinstance(e, Melded) and e.seat == seat and e.units > 0)
        assert line.won == (result.winner == seat) or digest.reason == "split"
        assert line.biggest >= 0 and not (line.played and line.on_top)
        dealt = next(e.cards for e in seen if isinstance(e, CardsDealt) and e.seat == seat)
        assert line.made == made_cards(dealt)
        start = next(e for e in seen if isinstance(e, HandStarted))
        assert line.position == start.dealt.index(seat)
    seat_to_seat = sum(
        e.amount for e in seen if isinstance(e, ChipsMoved) and isinstance(e.payer, int) and isinstance(e.payee, int)
    )
    assert sum(digest.flows.values()) == seat_to_seat
    assert decode(digest.encode()) == digest


def test_tourney_digest_round_trip() -> None:
    t = TourneyDigest(tourney_id=5, places=[(1, 1, True), (-3, 2, False)])
    assert decode(t.encode()) == t


_ints = st.integers(-(2**62), 2**62)
_facts = st.none() | st.integers(0, 10)


@settings(max_examples=200, deadline=None)
@given(
    table=_ints,
    hand=_ints,
    reason=st.sampled_from(["out", "settled", "split", "stock", "aborted", 'caf\u00e9 "x"']),
    winner=st.none() | _ints,
    splitters=st.lists(_ints, max_size=3),
    rows=st.lists(
        st.tuples(_ints, st.booleans(), st.booleans(), st.booleans(), _ints, _ints, _ints, _ints, _facts, _facts),
        max_size=6,
    ),
    flows=st.dictionaries(st.tuples(_ints, _ints), _ints, max_size=6),
)
def test_hand_encoding_is_the_json_encoders_text(
    table: int,
    hand: int,
    reason: str,
    winner: int | None,
    splitters: list[int],
    rows: list[tuple[int, bool, bool, bool, int, int, int, int, int | None, int | None]],
    flows: dict[tuple[int, int], int],
) -> None:
    """The hand-formatted body (it runs in every settlement) is character for character what ``json`` writes for
    the same object, so stored bodies and the rebuild's are interchangeable; and it decodes back."""
    digest = HandDigest(
        table_id=table,
        hand_no=hand,
        reason=reason,
        winner=winner,
        splitters=tuple(splitters),
        players=[
            PlayerLine(
                user_id=u,
                played=a,
                on_top=b,
                won=c,
                conditions=d,
                condition_chips=e,
                biggest=f,
                net=g,
                made=m,
                position=o,
            )
            for u, a, b, c, d, e, f, g, m, o in rows
        ],
        flows=flows,
    )
    expected = json.dumps(
        {
            "k": "hand",
            "t": table,
            "n": hand,
            "r": reason,
            "w": winner,
            "s": splitters,
            "p": [[u, int(a), int(b), int(c), d, e, f, g, m, o] for u, a, b, c, d, e, f, g, m, o in rows],
            "f": [[a, b, c] for (a, b), c in sorted(flows.items())],
        },
        separators=(",", ":"),
    )
    assert digest.encode() == expected
    assert decode(digest.encode()) == digest


@pytest.mark.parametrize(
    "text",
    [
        '{"x":1}',
        '{"k":"table","t":1,"n":2,"r":"out","w":null,"s":[],"p":[],"f":[]}',
        '{"t":1,"n":2,"r":"out","w":null,"s":[],"p":[],"f":[]}',
    ],
)
def test_decode_refuses_a_text_that_is_not_a_league_digest(text: str) -> None:
    """Only a hand or a tournament body decodes; anything else is a ValueError naming the text (never a stray
    KeyError, never a hand read from a body of another kind)."""
    with pytest.raises(ValueError, match="not a league digest"):
        decode(text)


def test_a_body_recorded_before_the_strength_and_order_were_kept_still_decodes() -> None:
    """Rows of 8 numbers (bodies stored before ``made`` and ``position``) decode with both unknown (None), which the
    soft-play flag judges with their own baseline; and a reader of 8-number rows reads the new rows' first 8."""
    old = '{"k":"hand","t":5,"n":2,"r":"out","w":7,"s":[],"p":[[7,1,0,1,2,6,4,9],[8,0,1,0,0,0,0,-9]],"f":[[8,7,9]]}'
    digest = decode(old)
    assert isinstance(digest, HandDigest)
    assert [(p.user_id, p.made, p.position) for p in digest.players] == [(7, None, None), (8, None, None)]
    assert digest.players[0] == PlayerLine(
        user_id=7, played=True, won=True, conditions=2, condition_chips=6, biggest=4, net=9
    )
    new = json.loads(
        HandDigest(
            table_id=5, hand_no=2, reason="out", winner=7, players=[PlayerLine(user_id=7, made=3, position=1)]
        ).encode()
    )
    assert new["p"] == [[7, 0, 0, 0, 0, 0, 0, 0, 3, 1]]
