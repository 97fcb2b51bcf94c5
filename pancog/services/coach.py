"""The practice coach and "what you would collect if you went out now" (no discord imports).

- :func:`coached_plays`: at a practice table (one person against computer players, where ``/hint`` is allowed),
  why the top plays of My hand rank where they do (:func:`pancog.ai.coach.play_facts`).
- :class:`CoachService`: after each hand at a practice table, what the person missed in it
  (:func:`pancog.ai.coach.review_hand` over the hand's durable log, read through the replay service), kept for his
  My hand panel between hands.
- :func:`out_now`: at every table, what a player in action would be paid by going out now, by payer, from the
  engine's settlement (:func:`pancog.game.engine.going_out_pay`): the exact postings of a going-out play when he
  has one, else the board as it lies (docs/how-to-play.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from pancog.ai.coach import Miss, PlayFacts, play_facts, review_hand
from pancog.game import engine
from pancog.game.actions import Action, AddToMeld, Borrow, MakeGood, NewMeld
from pancog.game.engine import Observation
from pancog.game.errors import RuleViolation
from pancog.game.state import Pot, TableState
from pancog.services.bots import hint_allowed
from pancog.services.replay import ReplayService
from pancog.services.tables import TableClosed, TableSession

__all__ = ["CoachService", "HandReview", "OutNow", "coached_plays", "out_now"]

log = logging.getLogger("pan.bots")

KEPT_REVIEWS = 1024
"""Reviews kept for the panels between hands (one per practice table and person; a table that closes between
hands leaves its review behind until this many newer ones push it out)."""


def coached_plays(
    session: TableSession, user_id: int, obs: Observation, ordered: Sequence[tuple[Action, int]]
) -> tuple[PlayFacts, ...]:
    """Why the first plays of ``ordered`` (My hand's menu, best first) rank there — only at a practice table where
    everyone else is a computer player (elsewhere it would be coaching), and never an error: a coach that fails is
    logged and says nothing (My hand must work)."""
    if not hint_allowed(session, user_id):
        return ()
    try:
        return play_facts(obs, [a for a, _ in ordered])
    except Exception:
        log.warning("the coach's reasons failed; My hand goes without them", exc_info=True)
        return ()


@dataclass(frozen=True, slots=True, kw_only=True)
class OutNow:
    """What a player would collect by going out now: each payer's chips (by seat, in rotation) and the tops.
    ``play``: the going-out play these are the exact postings of; None: the board as it lies (a hypothetical)."""

    play: Action | None
    payments: tuple[tuple[int, int], ...]  # (payer seat, chips)
    tops: int

    @property
    def total(self) -> int:
        return self.tops + sum(chips for _, chips in self.payments)


def out_now(state: TableState, seat: int, ordered: Sequence[tuple[Action, int]] = ()) -> OutNow | None:
    """What ``seat`` would be paid by going out now (None: not in action in a hand being played).

    ``ordered``: the seat's legal plays in ``state``; the first that empties the hand gives the exact figure.
    """
    hand = state.hand
    pl = hand.players[seat] if hand is not None and 0 <= seat < len(hand.players) else None
    if pl is None:
        return None
    play = next((a for a, _ in ordered if _empties(a, len(pl.hand))), None)
    try:
        moves = engine.going_out_pay(state, seat, play)
    except RuleViolation:  # ``ordered`` was listed for another state: the board as it lies
        play, moves = None, engine.going_out_pay(state, seat)
    if not moves:
        return None
    payments: dict[int, int] = {}
    tops = 0
    for m in moves:
        if isinstance(m.payer, Pot):
            tops += m.amount
        else:
            payments[m.payer] = payments.get(m.payer, 0) + m.amount
    return OutNow(play=play, payments=tuple(payments.items()), tops=tops)


def _empties(action: Action, hand_size: int) -> bool:
    """A meld play that uses every card of the hand (a flat player's lay-off of the drawn card uses none)."""
    return isinstance(action, NewMeld | AddToMeld | Borrow | MakeGood) and len(action.cards) == hand_size


@dataclass(frozen=True, slots=True, kw_only=True)
class HandReview:
    """What a person missed in one finished hand (``misses`` empty: nothing). ``player_ids`` by seat, to name the
    players a miss mentions."""

    table_id: int
    hand_no: int
    user_id: int
    seat: int
    misses: tuple[Miss, ...]
    player_ids: tuple[int | None, ...]


class CoachService:
    """Reviews practice hands after they end, from the table's durable log (the replay service's cached replay)."""

    def __init__(self, replays: ReplayService) -> None:
        self.replays = replays
        # (table, person) -> his last hand's review; dropped at the next deal or the close, and bounded
        self._last: OrderedDict[tuple[int, int], HandReview] = OrderedDict()

    @staticmethod
    def coaches(session: TableSession, user_id: int) -> bool:
        """Practice tables only: one person against computer players."""
        return user_id > 0 and hint_allowed(session, user_id)

    async def review(self, session: TableSession, hand_no: int, user_id: int) -> HandReview | None:
        """What ``user_id`` missed in hand ``hand_no`` (None: not a coached table, or he was not dealt in)."""
        if not self.coaches(session, user_id):
            return None
        table_log = await self.replays.log(session.table_id)
        hand = table_log.find(hand_no)
        if user_id not in hand.summary.dealt:
            return None
        start = hand.start
        seat = next(i for i, s in enumerate(start.seats) if s is not None and s.player_id == user_id)
        actions = [action for _seq, action in hand.actions]
        misses = await asyncio.to_thread(review_hand, start, actions, seat)
        found = HandReview(
            table_id=session.table_id,
            hand_no=hand_no,
            user_id=user_id,
            seat=seat,
            misses=misses,
            player_ids=tuple(s.player_id if s is not None else None for s in start.seats),
        )
        now = session.state
        if now.hand is None and now.hand_no == hand_no:  # a review finished after the next deal is no longer kept
            self._last[(session.table_id, user_id)] = found
            self._last.move_to_end((session.table_id, user_id))
            while len(self._last) > KEPT_REVIEWS:
                self._last.popitem(last=False)
        return found

    def last(self, table_id: int, user_id: int) -> HandReview | None:
        """The person's last review at the table (shown on his panel until the next deal)."""
        return self._last.get((table_id, user_id))

    def forget(self, table_id: int) -> None:
        """A new hand was dealt (or the table closed): the last hand's reviews are done with."""
        for key in [k for k in self._last if k[0] == table_id]:
            del self._last[key]

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): its reviews go."""
        self.forget(closed.table_id)
