"""What an audience may know of a table's hands: the bot's one information-flow rule, as pure functions.

Every payload the bot sends has an **audience**: everyone (a public channel or thread), one person (an ephemeral
answer, a DM) or a moderator (an answer to a member the adapter checked is one). The adapter's edge
(``pancog/adapter/edge.py``) asks :class:`KnowledgeService` what that audience may know of the table the payload is
about and refuses to send a payload that shows more. The rule, per hand:

- **while a hand is unfinished** everyone may know the public table (every meld, the discard pile, the card face
  up in play, the upcard; after the stock was reshuffled, the discards that became the new stock); a player also
  his own cards; a watcher also the cards of the player who shares them with him (``pancog/services/watch.py``),
  while that grant holds. A moderator dealt into the hand knows what a player knows; a moderator not dealt in
  knows the whole deal (floor rulings).
- **after a hand** a player still knows the public play and his own cards, a bystander the public play; the full
  deal (seed, shoe, every hand) is for moderators, and for the players of that hand once every one of them
  agreed to reveal it (``pancog/services/reveals.py``).

Knowledge is counted **per card face** (rank and suit): the shoe holds eight decks, so the same face can be public
and hidden at once. ``HandView.cards[face]`` is how many copies of that face the audience may see *at once*: the
copies it has legitimately seen. Cards only ever move from hands and the stock to the public table (melds, the
discards) and never back (a reshuffled stock is made of public discards), so what is public now plus what the
audience holds now is what it has seen this hand. The one exception is a dead hand (fouled, quit, busted): its
cards leave the player's hand for the dead pile, which stays hidden; its owner is credited with the whole pile,
a small over-allowance for a rare case, never a refusal of his own cards.

No discord import: ids are ints, cards are engine values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from pancog.game.cards import Card
from pancog.game.state import HandState, Phase, PlayerStatus, TableState

__all__ = [
    "Audience",
    "AudienceKind",
    "HandView",
    "KnowledgeService",
    "TableKnowledge",
    "hand_view",
    "held_cards",
    "public_cards",
    "table_knowledge",
]

_DEAD = frozenset({PlayerStatus.FOULED, PlayerStatus.QUIT, PlayerStatus.BUSTED})


class AudienceKind(StrEnum):
    EVERYONE = "everyone"  # a public channel or thread
    PERSON = "person"  # an ephemeral answer or a DM: that one user
    MODERATOR = "moderator"  # an answer to a member the adapter checked is a moderator


@dataclass(frozen=True, slots=True)
class Audience:
    """Who will see a payload."""

    kind: AudienceKind
    user_id: int | None = None

    @classmethod
    def everyone(cls) -> Audience:
        return cls(AudienceKind.EVERYONE)

    @classmethod
    def person(cls, user_id: int) -> Audience:
        return cls(AudienceKind.PERSON, user_id)

    @classmethod
    def moderator(cls, user_id: int) -> Audience:
        return cls(AudienceKind.MODERATOR, user_id)

    def __str__(self) -> str:
        return self.kind.value if self.user_id is None else f"{self.kind.value} {self.user_id}"


@dataclass(frozen=True, slots=True)
class HandView:
    """What one audience may know of one hand: ``cards`` per face — the public play, its own cards, a shared
    hand — and whether it may see the whole deal (``full``: the seed, the stock, every hand)."""

    hand_no: int
    finished: bool
    cards: Counter[Card]
    full: bool = False
    seed: int | None = None


def public_cards(hand: HandState) -> Counter[Card]:
    """Every card of the hand that everyone has seen: melds, discards, the card in play, a reshuffled stock.

    A fresh counter the caller may change. Counted once per hand state: every payload checks the hand in progress
    and the last finished one (which stays the same object for a whole hand), and a board, the answer and the
    pings of one action check the same state; counting a few hundred cards each time was most of the check."""
    found = _PUBLIC.get(id(hand))
    if found is not None and found[0] is hand:  # the state itself is kept with its count: its id is not reused
        return found[1].copy()
    counted = _count_public(hand)
    if len(_PUBLIC) >= _PUBLIC_KEPT:
        del _PUBLIC[next(iter(_PUBLIC))]  # the oldest
    _PUBLIC[id(hand)] = (hand, counted)
    return counted.copy()


_PUBLIC: dict[int, tuple[HandState, Counter[Card]]] = {}
_PUBLIC_KEPT = 256  # hand states (a few per open table: the hand in progress, the last one, a board's)


def _count_public(hand: HandState) -> Counter[Card]:
    cards = list(hand.muck)  # one list, counted once
    for player in hand.players:
        if player is not None:
            for meld in player.melds:
                cards += meld.cards
    for turn in (hand.turn, hand.suspended):
        if turn is not None and turn.drawn is not None:
            cards.append(turn.drawn)
    if hand.reshuffled:  # the new stock is the old discards: everyone saw them go by
        cards += hand.stock
    return Counter(cards)


def held_cards(hand: HandState, seat: int) -> Counter[Card]:
    """The cards one dealt-in seat holds (a dead hand: the dead pile, which holds its cards)."""
    player = hand.players[seat] if 0 <= seat < len(hand.players) else None
    if player is None:
        return Counter()
    if player.status in _DEAD:
        return Counter(hand.dead) + Counter(player.hand)
    return Counter(player.hand)


def _seat_of(player_ids: Mapping[int, int], user_id: int | None) -> int | None:
    if user_id is None:
        return None
    return next((seat for seat, pid in player_ids.items() if pid == user_id), None)


def hand_view(
    hand: HandState,
    player_ids: Mapping[int, int],
    audience: Audience,
    *,
    finished: bool,
    watched: Collection[int] = (),
    revealed_to: Collection[int] = (),
) -> HandView:
    """What ``audience`` may know of ``hand``.

    ``player_ids``: seat -> player id of the hand's seats; ``watched``: player ids sharing their cards with the
    audience now (unfinished hands only); ``revealed_to``: the players who may see the whole finished deal (every
    player of the hand agreed), empty otherwise.
    """
    seat = _seat_of(player_ids, audience.user_id)
    dealt_in = seat is not None and 0 <= seat < len(hand.players) and hand.players[seat] is not None
    full = (audience.kind is AudienceKind.MODERATOR and (finished or not dealt_in)) or (
        finished and audience.user_id is not None and audience.user_id in revealed_to
    )
    cards = public_cards(hand)
    if dealt_in and seat is not None:
        cards.update(held_cards(hand, seat))
    if not finished:
        for pid in watched:
            other = _seat_of(player_ids, pid)
            if other is not None:
                cards.update(held_cards(hand, other))
    return HandView(hand.hand_no, finished, cards, full, hand.seed)


def _max(counters: Iterable[Counter[Card]]) -> Counter[Card]:
    found = list(counters)
    if len(found) == 1:
        return found[0]
    out: Counter[Card] = Counter()
    for counter in found:
        out |= counter  # the elementwise maximum: a listing shows one hand at a time
    return out


@dataclass(frozen=True, slots=True)
class TableKnowledge:
    """What one audience may know of one table: a :class:`HandView` per hand it may be shown.

    ``default`` are the hands a payload is about unless it says otherwise: the hand in progress and the last
    finished one (a board between hands, the end-of-hand summary after the next deal)."""

    table_id: int
    audience: Audience
    hands: Mapping[int, HandView]
    default: tuple[int, ...]
    secrets: tuple[str, ...] = ()  # seeds (decimal) of hands the audience may not learn in full

    def allowed(self, hand_nos: Iterable[int] | None = None) -> Counter[Card] | None:
        """Copies per face the audience may see at once in a payload about ``hand_nos`` (default: ``default``);
        None: any card — only for a payload about exactly one hand whose whole deal the audience may see (a
        payload about several hands cannot say which one a listing belongs to, so a whole deal counts there as
        the audience's ordinary view of it). A hand not known here counts as the default hands."""
        wanted = tuple(self.default if hand_nos is None else hand_nos)
        views = [self.hands[n] for n in wanted if n in self.hands]
        if not views:
            views = [self.hands[n] for n in self.default if n in self.hands]
        if not views:
            return Counter()
        if len(views) == 1 and views[0].full:
            return None
        return _max(v.cards for v in views)


def _player_ids(state: TableState) -> dict[int, int]:
    return {i: s.player_id for i, s in enumerate(state.seats) if s is not None}


def table_knowledge(
    state: TableState,
    audience: Audience,
    *,
    watched: Collection[int] = (),
    revealed: Callable[[int], Collection[int]] = lambda _hand_no: (),
    past: Iterable[tuple[HandState, Mapping[int, int]]] = (),
    last_players: Mapping[int, int] | None = None,
) -> TableKnowledge:
    """What ``audience`` may know of the table in ``state``: the hand in progress, the last finished one, and the
    finished ``past`` hands given as (final hand state, seat -> player id).

    ``watched``: player ids sharing their cards with the audience now; ``revealed(hand_no)``: the players who may
    see that finished hand's whole deal; ``last_players``: seat -> player id of the last hand (default: the seats
    now; a player who stood up as it ended is no longer on them).
    """
    seats_now = _player_ids(state)
    hands: dict[int, HandView] = {}
    default: list[int] = []
    for hand, players in past:
        hands[hand.hand_no] = hand_view(hand, players, audience, finished=True, revealed_to=revealed(hand.hand_no))
    last = state.last_hand
    if last is not None:
        players = last_players if last_players is not None else seats_now
        hands[last.hand_no] = hand_view(last, players, audience, finished=True, revealed_to=revealed(last.hand_no))
        default.append(last.hand_no)
    current = state.hand
    if current is not None:
        finished = current.phase is Phase.OVER
        hands[current.hand_no] = hand_view(current, seats_now, audience, finished=finished, watched=watched)
        default.append(current.hand_no)
    secrets = tuple(str(v.seed) for v in hands.values() if not v.full and v.seed is not None)
    return TableKnowledge(state.table_id, audience, hands, tuple(default), secrets)


# --------------------------------------------------------------------------------------------- the service


Watching = Callable[[int, int], Collection[int]]
"""(table id, watcher id) -> the player ids sharing their cards with that watcher there now."""
Revealed = Callable[[int, int], Collection[int]]
"""(table id, hand number) -> the players who may see that finished hand's whole deal."""
PastHands = Callable[[int, Collection[int]], Iterable[tuple[HandState, Mapping[int, int]]]]
"""(table id, hand numbers) -> those finished hands, as far as they are known without I/O."""


@dataclass(slots=True)
class KnowledgeService:
    """What may user U know at table T now: :func:`table_knowledge` over the live table, the watch grants, the
    reveal consents and (for older hands) the replayed log. Synchronous and I/O-free: the edge asks it for every
    payload it sends."""

    watching: Watching = field(default=lambda _table, _user: ())
    revealed: Revealed = field(default=lambda _table, _hand: ())
    past: PastHands = field(default=lambda _table, _hands: ())

    def of(self, state: TableState, audience: Audience, *, hands: Collection[int] = ()) -> TableKnowledge:
        """What ``audience`` may know of the table in ``state`` (``hands``: older hands the payload is about)."""
        table_id = state.table_id
        user = audience.user_id
        watched = self.watching(table_id, user) if user is not None else ()
        known = {h.hand_no for h in (state.hand, state.last_hand) if h is not None}
        older = [n for n in hands if n not in known]
        past = list(self.past(table_id, older)) if older else []
        return table_knowledge(
            state,
            audience,
            watched=watched,
            revealed=lambda hand_no: self.revealed(table_id, hand_no),
            past=past,
        )
