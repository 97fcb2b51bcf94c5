"""Play hands at a real TableService with scripted decision-makers in the seats (tests, benchmarks, self-checks).

Each seated user (human id or not) is played by a :class:`~pancog.ai.base.Player` policy through
``TableService.act`` — the same commit path a Discord player uses, so the league hook, the ledger and the action
log all see ordinary play. :class:`Feeder` is a scripted chip dumper for the collusion tests: it always knocks
in and never melds, so the partner it sits with collects its conditions hand after hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from pancog.ai import make_player
from pancog.ai.base import Player, choices, reactions
from pancog.ai.selfplay import play_hand
from pancog.game.actions import (
    Action,
    AddToMeld,
    Borrow,
    Discard,
    GoOnTop,
    Knock,
    MeldPlay,
    NewMeld,
    OfferSplit,
    Pluck,
    Sit,
)
from pancog.game.engine import Observation, apply, observe, to_act
from pancog.game.events import Event
from pancog.game.rules import Rules
from pancog.game.state import PlayerStatus, initial_state
from pancog.services.league.digest import HandDigest, HandTally
from pancog.services.tables import TableService

__all__ = ["Feeder", "GreedyPlayer", "SoftPlayer", "engine_session", "honest_guild", "play_hands"]

MAX_STEPS = 5000


class GreedyPlayer:
    """A quick honest policy: knocks with probability ``knock``, then makes the play melding the most cards, else
    plucks / uses the drawn card / discards at random. Equal players for the false-positive runs."""

    def __init__(self, knock: float = 0.75) -> None:
        self.knock = knock

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        return self.pick(legal, rng)

    def pick(self, legal: Sequence[Action], rng: random.Random) -> Action:
        declare = [a for a in legal if isinstance(a, (Knock, GoOnTop))]
        if declare:
            want = Knock if rng.random() < self.knock else GoOnTop
            return next((a for a in declare if isinstance(a, want)), declare[0])
        best: Action | None = None
        best_n = 0
        for a in legal:
            if isinstance(a, (NewMeld, AddToMeld, Borrow)):
                n = len(a.cards) + (len(a.taken) if isinstance(a, Borrow) else 0)
                if n > best_n:
                    best, best_n = a, n
        if best is not None:
            return best
        for kind in (Pluck,):
            for a in legal:
                if isinstance(a, kind):
                    return a
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            return rng.choice(discards)
        return rng.choice([a for a in legal if not isinstance(a, OfferSplit)] or list(legal))

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return None


class Feeder:
    """Knocks in every hand and never melds (plucks and throws): a pure chip donor to whoever it sits with."""

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        return self.pick(legal, rng)

    def pick(self, legal: Sequence[Action], rng: random.Random) -> Action:
        for kind in (Knock, Pluck):
            for a in legal:
                if isinstance(a, kind):
                    return a
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            return rng.choice(discards)
        passive = [a for a in legal if not isinstance(a, (MeldPlay, GoOnTop, OfferSplit))]
        return rng.choice(passive or list(legal))

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return None


class SoftPlayer:
    """Plays like ``base`` but goes on top whenever ``partner`` has already knocked in (soft play)."""

    def __init__(self, base: Player, partner_seat: int) -> None:
        self.base = base
        self.partner_seat = partner_seat

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        top = [a for a in legal if isinstance(a, GoOnTop)]
        partner_in = any(v.seat == self.partner_seat and v.status is PlayerStatus.IN for v in obs.players)
        if top and partner_in:
            return top[0]
        return self.base.choose(obs, legal, rng)

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return self.base.react(obs, legal, rng)


def _const(action: Action) -> Callable[[int], Action]:
    return lambda _seat: action


async def play_hands(
    service: TableService, table_id: int, players: Mapping[int, Player], hands: int, *, seed: int = 0
) -> int:
    """Deal and play ``hands`` hands at ``table_id``; ``players`` maps each seated user id to its policy.

    Returns the number of actions committed. Raises ``RuntimeError`` if a hand does not finish.
    """
    rngs = {user: random.Random(f"{seed}:{user}") for user in players}
    committed = 0
    for _ in range(hands):
        session = service.get(table_id)
        starter = next(iter(players))
        await service.start_hand(table_id, starter)
        committed += 1
        hand_no = session.state.hand_no
        steps = 0
        polled: int | None = None
        while session.state.hand is not None and session.state.hand.hand_no == hand_no:
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError("hand did not finish")
            state = session.state
            actor = to_act(state)
            chosen: tuple[int, Action] | None = None
            h = state.hand
            if h is not None and polled != state.seq and (h.option is not None or h.force_backs or h.split_offer):
                polled = state.seq
                for seat, occupant in enumerate(state.seats):
                    if occupant is None or seat == actor or occupant.player_id not in players:
                        continue
                    obs = observe(state, seat)
                    legal = reactions(obs)
                    if legal:
                        act = players[occupant.player_id].react(obs, legal, rngs[occupant.player_id])
                        if act is not None:
                            chosen = (occupant.player_id, act)
                            break
            if chosen is None:
                if actor is None:
                    raise RuntimeError("no seat to act in a hand in progress")
                occupant = state.seats[actor]
                if occupant is None:
                    raise RuntimeError(f"seat {actor} is empty")
                obs = observe(state, actor)
                legal = choices(obs)
                user = occupant.player_id
                chosen = (user, players[user].choose(obs, legal, rngs[user]))
            user, action = chosen
            await service.act(table_id, user, _const(action))
            committed += 1
    return committed


def engine_session(
    user_ids: Sequence[int], players: Sequence[Player], hands: int, *, seed: int, table_id: int, buy_in: int = 100_000
) -> list[HandDigest]:
    """Play ``hands`` hands of engine self-play (:func:`pancog.ai.selfplay.play_hand`: no storage, quick) with
    ``user_ids`` seated in order and return the hands' digests, folded by the same :class:`HandTally` the settlement
    hook uses."""
    state = initial_state(Rules(), table_id=table_id)
    for seat, user in enumerate(user_ids):
        state = apply(state, Sit(player_id=user, buy_in=buy_in, seat=seat)).state
    tally = HandTally(table_id)
    out: list[HandDigest] = []
    rng = random.Random(seed)
    seated = state

    def feed(events: Sequence[Event]) -> None:
        digest = tally.feed(seated, events)  # HandTally reads the seats at the deal; they do not change here
        if digest is not None:
            out.append(digest)

    for _ in range(hands):
        state = play_hand(state, players, seed=rng.getrandbits(40), on_events=feed).state
    return out


def honest_guild(seed: int, *, pool: int = 6, sessions: int = 8, hands: int = 12) -> list[HandDigest]:
    """A guild of ``pool`` equal honest players (user ids 1..pool, the easy computer level): ``sessions`` table
    sessions, each seating 2-4 players drawn at random, ``hands`` hands each. For the flags' false-positive runs."""
    rng = random.Random(seed)
    out: list[HandDigest] = []
    for s in range(sessions):
        users = rng.sample(range(1, pool + 1), rng.randint(2, min(4, pool)))
        players = [make_player("easy") for _ in users]
        out += engine_session(users, players, hands, seed=rng.getrandbits(40), table_id=seed * 10_000 + s + 1)
    return out
