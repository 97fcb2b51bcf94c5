"""Per-result digests: what one finished hand (or tournament) means for the league, derived from engine events.

A :class:`HandTally` is fed the events of a table's transitions in order (the same events the action log
stores); when a hand ends it yields a :class:`HandDigest`: for every player dealt in, whether he knocked
(played) or went on top, whether he went out, the conditions he collected, his biggest single collection, his
net chips for the hand, how many of his dealt cards were already in melds and his place in the declarations, plus
the chips that moved directly between each pair of seats (the evidence for the chip-dumping flags).
:func:`digests_from_log` replays a stored action log through the engine to produce the same digests (the rebuild
path). Digests encode to a compact JSON text (``league_results.body``).

Pure: no I/O, no discord.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from pancog.ai.evaluate import made_cards
from pancog.game import engine
from pancog.game.events import CardsDealt, ChipReason, Declared, Event, HandEnded, HandStarted, Melded
from pancog.game.notation import parse_action
from pancog.game.rules import Rules
from pancog.game.state import EndReason, TableState, initial_state
from pancog.services.chips import HandChips, HandResult

__all__ = [
    "RATED_REASONS",
    "HandDigest",
    "HandTally",
    "PlayerLine",
    "TourneyDigest",
    "decode",
    "digests_from_log",
    "is_human",
    "rating_match",
]

_ENCODER = json.JSONEncoder(separators=(",", ":"))  # one encoder: json.dumps with options builds one per call
_json_text = json.encoder.encode_basestring_ascii  # a JSON string literal, exactly as the encoder writes it

RATED_REASONS = frozenset({EndReason.OUT.value, EndReason.SETTLED.value, EndReason.SPLIT.value})
"""Hand ends that rank the players in action (someone went out, was settled as the last one, or split)."""


def is_human(user_id: int) -> bool:
    """Computer players have negative ids (pancog.services.bots); only humans are rated and ranked."""
    return user_id >= 0


@dataclass(slots=True, kw_only=True)
class PlayerLine:
    """One dealt-in player's hand: the stats counters it feeds."""

    user_id: int
    played: bool = False  # knocked in (final declaration)
    on_top: bool = False  # went on top (retired)
    won: bool = False  # went out / was the hand's winner
    conditions: int = 0  # condition plays that collected
    condition_chips: int = 0
    biggest: int = 0  # most chips collected by one action
    net: int = 0  # chips won (+) or lost (-) over the hand
    # Two facts for the soft-play flag, None in digests recorded before they were kept (the rows were 8 long):
    made: int | None = None  # cards of his dealt hand already in melds
    position: int | None = None  # his place in the declarations (0: declared first)


@dataclass(slots=True, kw_only=True)
class HandDigest:
    table_id: int
    hand_no: int
    reason: str
    winner: int | None  # user id
    splitters: tuple[int, ...] = ()  # user ids
    players: list[PlayerLine] = field(default_factory=list)
    flows: dict[tuple[int, int], int] = field(default_factory=dict)  # (payer, payee) user ids -> chips

    @property
    def key(self) -> str:
        return f"hand:{self.table_id}:{self.hand_no}"

    def encode(self) -> str:
        """The compact JSON text, the same characters as ``json`` with ``(",", ":")`` separators would write for
        ``{"k": "hand", "t": .., "n": .., "r": .., "w": .., "s": [..], "p": [rows], "f": [[a, b, c], ..]}``.
        Formatted by hand: it runs on every hand-ending settlement's path (a cost every hand pays), and ``json``'s
        generic walk over nested lists costs about three times as much. ``%d`` refuses a non-number."""
        players = ",".join(
            "[%d,%d,%d,%d,%d,%d,%d,%d,%s,%s]"  # noqa: UP031 (one format call per row is the fast path)
            % (
                p.user_id,
                p.played,
                p.on_top,
                p.won,
                p.conditions,
                p.condition_chips,
                p.biggest,
                p.net,
                "null" if p.made is None else "%d" % p.made,  # noqa: UP031
                "null" if p.position is None else "%d" % p.position,  # noqa: UP031
            )
            for p in self.players
        )
        flows = ",".join("[%d,%d,%d]" % (a, b, c) for (a, b), c in sorted(self.flows.items()))  # noqa: UP031
        winner = "null" if self.winner is None else "%d" % self.winner  # noqa: UP031
        splitters = ",".join("%d" % s for s in self.splitters)  # noqa: UP031
        return (
            f'{{"k":"hand","t":{self.table_id:d},"n":{self.hand_no:d},"r":{_json_text(self.reason)},'
            f'"w":{winner},"s":[{splitters}],"p":[{players}],"f":[{flows}]}}'
        )


@dataclass(slots=True, kw_only=True)
class TourneyDigest:
    tourney_id: int
    places: list[tuple[int, int, bool]]  # (user id, finishing place 1.., cashed)

    @property
    def key(self) -> str:
        return f"tourney:{self.tourney_id}"

    def encode(self) -> str:
        rows = [[u, p, int(c)] for u, p, c in self.places]
        return _ENCODER.encode({"k": "tourney", "i": self.tourney_id, "pl": rows})


def decode(text: str) -> HandDigest | TourneyDigest:
    """Inverse of ``encode``. Raises ``ValueError`` on a malformed text."""
    data = json.loads(text)
    if data.get("k") == "tourney":
        return TourneyDigest(tourney_id=int(data["i"]), places=[(int(u), int(p), bool(c)) for u, p, c in data["pl"]])
    if data.get("k") != "hand":
        raise ValueError(f"not a league digest: {text[:60]!r}")
    players = [
        PlayerLine(
            user_id=int(r[0]),
            played=bool(r[1]),
            on_top=bool(r[2]),
            won=bool(r[3]),
            conditions=int(r[4]),
            condition_chips=int(r[5]),
            biggest=int(r[6]),
            net=int(r[7]),
            made=None if len(r) < 10 or r[8] is None else int(r[8]),
            position=None if len(r) < 10 or r[9] is None else int(r[9]),
        )
        for r in data["p"]
    ]
    return HandDigest(
        table_id=int(data["t"]),
        hand_no=int(data["n"]),
        reason=str(data["r"]),
        winner=None if data["w"] is None else int(data["w"]),
        splitters=tuple(int(s) for s in data["s"]),
        players=players,
        flows={(int(a), int(b)): int(c) for a, b, c in data["f"]},
    )


def rating_match(digest: HandDigest | TourneyDigest) -> tuple[list[int], list[int]] | None:
    """(human user ids, ranks: 1 = best, ties share a rank) of a result, or None if it ranks nobody.

    Cash hand: the humans who knocked in; the one who went out (or the splitters) rank 1, the others 2. Players
    who went on top take no part; computer players are left out (a hand a computer won ranks no human above
    another, so it is not rated). Tournament: the humans' finishing places.
    """
    if isinstance(digest, TourneyDigest):
        rows = sorted((p, u) for u, p, _ in digest.places if is_human(u))
        ids = [u for _, u in rows]
        ranks = [p for p, _ in rows]
    else:
        if digest.reason not in RATED_REASONS:
            return None
        top = set(digest.splitters) if digest.splitters else {digest.winner}
        ids = sorted(p.user_id for p in digest.players if p.played and is_human(p.user_id))
        ranks = [1 if u in top else 2 for u in ids]
    if len(ids) < 2 or len(set(ranks)) < 2:
        return None
    return ids, ranks


class HandTally:
    """Folds one table's transitions into the digest of the hand in progress (feed transitions in seq order).

    The digest's chip figures (each player's net, condition chips, biggest collection, the chips between players)
    are the hand's :class:`~pancog.services.chips.HandResult`, folded by :class:`~pancog.services.chips.HandChips`
    from the same postings mapping the table service commits: ``/pan stats``, standings and leaderboards add up
    what the ledger holds. The rest (declarations, conditions made, the dealt hand) comes from the events."""

    __slots__ = ("_chips", "_lines", "_seat_user", "_started", "hand_no", "table_id")

    def __init__(self, table_id: int) -> None:
        self.table_id = table_id
        self.hand_no: int | None = None  # the hand being tallied (None: none seen start)
        self._seat_user: dict[int, int] = {}
        self._lines: dict[int, PlayerLine] = {}  # by seat
        self._started = False
        self._chips = HandChips(table_id)

    def copy(self) -> HandTally:
        other = HandTally(self.table_id)
        other.hand_no = self.hand_no
        other._seat_user = dict(self._seat_user)
        other._lines = {seat: dataclasses.replace(line) for seat, line in self._lines.items()}
        other._started = self._started
        other._chips = self._chips.copy()
        return other

    def feed(self, state: TableState, events: Sequence[Event], before: TableState | None = None) -> HandDigest | None:
        """Fold one transition (``state`` is the state after it, ``before`` the state before it: by default the same,
        which holds when nobody sits down or stands up in it); returns the digest if a hand ended in it."""
        result = self._chips.feed(before if before is not None else state, events, state)
        done: HandDigest | None = None
        for event in events:
            if isinstance(event, Melded):
                if event.units > 0 and event.seat in self._lines:
                    self._lines[event.seat].conditions += 1
            elif isinstance(event, Declared):
                line = self._lines.get(event.seat)
                if line is not None:
                    line.played, line.on_top = event.playing, not event.playing
            elif isinstance(event, HandStarted):
                self._start(state, event)
            elif isinstance(event, CardsDealt):
                line = self._lines.get(event.seat)
                if line is not None:  # how good the dealt hand was: the soft-play flag judges on-top decisions by it
                    line.made = made_cards(event.cards)
            elif isinstance(event, HandEnded):
                done = self._end(event, result)
        return done

    def _start(self, state: TableState, event: HandStarted) -> None:
        self.hand_no = event.hand_no
        self._started = True
        self._seat_user = {}
        self._lines = {}
        for position, seat in enumerate(event.dealt):  # dealt in rotation from the first to declare
            occupant = state.seat(seat)
            if occupant is not None:
                self._seat_user[seat] = occupant.player_id
                self._lines[seat] = PlayerLine(user_id=occupant.player_id, position=position)

    def _end(self, event: HandEnded, result: HandResult | None) -> HandDigest | None:
        started, self._started = self._started, False
        lines, self._lines = self._lines, {}
        if not started or result is None or event.hand_no != self.hand_no:
            return None  # the start of this hand was not seen: the caller rebuilds it from the log
        users = self._seat_user
        for seat, line in lines.items():
            line.won = seat == event.winner or seat in event.splitters
            line.net = result.net(line.user_id)
            line.condition_chips = result.collected(line.user_id, ChipReason.CONDITION)
            line.biggest = result.biggest(line.user_id)
        return HandDigest(
            table_id=self.table_id,
            hand_no=event.hand_no,
            reason=event.reason.value,
            winner=users.get(event.winner) if event.winner is not None else None,
            splitters=tuple(sorted(users[s] for s in event.splitters if s in users)),
            players=[lines[s] for s in sorted(lines)],
            flows=result.between_players(),
        )


def digests_from_log(table_id: int, rules: Rules, actions: Iterable[str]) -> Iterator[tuple[int, HandDigest]]:
    """Replay a table's whole action log (engine notation, from seq 1) through the engine; yield (the 1-based
    position of the action that ended the hand, the hand's digest) for each finished hand."""
    state = initial_state(rules, table_id=table_id)
    tally = HandTally(table_id)
    for position, text in enumerate(actions, start=1):
        before = state
        transition = engine.apply(before, parse_action(text))
        state = transition.state
        digest = tally.feed(state, transition.events, before)
        if digest is not None:
            yield position, digest
