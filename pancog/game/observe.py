"""What one seat may see: :func:`observe` builds the :class:`Observation` computer players read."""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .cards import Card
from .melds import Meld, outs_units
from .queries import plays, to_act
from .rules import Rules
from .state import ForceBack, Phase, PlayerStatus, Step, TableState


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView:
    """What everyone may see of one dealt-in player."""

    seat: int
    player_id: int
    status: PlayerStatus
    multiplier: int
    hand_count: int
    melds: tuple[Meld, ...]
    board_value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """Everything ``seat`` may see, and nothing more (computer players see only this)."""

    seat: int
    rules: Rules
    seq: int
    hand_no: int
    stacks: tuple[int | None, ...]  # by seat slot (None = empty)
    player_ids: tuple[int | None, ...]
    singles_tops: int
    doubles_tops: int
    phase: Phase | None  # None between hands
    to_act: int | None
    turn_seat: int | None
    step: Step | None
    drawn: Card | None  # the face-up drawn / option / forced card waiting to be used
    hand: tuple[Card, ...]  # this seat's own cards
    players: tuple[PlayerView, ...]
    stock_count: int
    muck_top: Card | None
    option: Card | None
    option_from: int | None
    force_backs: tuple[ForceBack, ...]
    split_offer: int | None
    make_good: tuple[int, int] | None
    solo: bool
    legal: tuple[tuple[Action, int], ...]  # this seat's legal actions with what each pays


def observe(state: TableState, seat: int) -> Observation:
    """What ``seat`` may see (its own hand, the public board, counts, stacks, tops, its legal actions)."""
    h = state.hand
    views: list[PlayerView] = []
    hand: tuple[Card, ...] = ()
    if h is not None:
        for pl in h.players:
            if pl is None:
                continue
            s = state.seats[pl.seat]
            views.append(
                PlayerView(
                    seat=pl.seat,
                    player_id=s.player_id if s is not None else 0,
                    status=pl.status,
                    multiplier=pl.multiplier,
                    hand_count=len(pl.hand),
                    melds=pl.melds,
                    board_value=outs_units(pl.melds, state.rules),
                )
            )
        mine = h.players[seat] if 0 <= seat < len(h.players) else None
        hand = mine.hand if mine is not None else ()
    t = h.turn if h is not None else None
    return Observation(
        seat=seat,
        rules=state.rules,
        seq=state.seq,
        hand_no=state.hand_no,
        stacks=tuple(s.stack if s is not None else None for s in state.seats),
        player_ids=tuple(s.player_id if s is not None else None for s in state.seats),
        singles_tops=state.singles_tops,
        doubles_tops=state.doubles_tops,
        phase=h.phase if h is not None else None,
        to_act=to_act(state),
        turn_seat=t.seat if t is not None else None,
        step=t.step if t is not None else None,
        drawn=t.drawn if t is not None else None,
        hand=hand,
        players=tuple(views),
        stock_count=len(h.stock) if h is not None else 0,
        muck_top=h.muck[-1] if h is not None and h.muck else None,
        option=h.option if h is not None else None,
        option_from=h.option_from if h is not None else None,
        force_backs=h.force_backs if h is not None else (),
        split_offer=h.split_offer if h is not None else None,
        make_good=h.make_good if h is not None else None,
        solo=h.solo if h is not None else False,
        legal=plays(state, seat) if state.seat(seat) is not None else (),
    )
