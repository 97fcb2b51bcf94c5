"""Play hands at a real TableService with scripted decision-makers in the seats (tests, benchmarks, self-checks).

Each seated user (human id or not) is played by a :class:`~pancog.ai.base.Player` policy through
``TableService.act`` — the same commit path a Discord player uses, so the league hook, the ledger and the action
log all see ordinary play. :class:`Feeder` is a scripted chip dumper for the collusion tests: it always knocks
in and never melds, so the partner it sits with collects its conditions hand after hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from pancog.ai.base import Player, choices, reactions
from pancog.game.actions import Action, GoOnTop, Knock, MeldPlay
from pancog.game.engine import Observation, observe, to_act
from pancog.game.state import PlayerStatus
from pancog.tables import TableService

__all__ = ["Feeder", "SoftPlayer", "play_hands"]

MAX_STEPS = 5000


class Feeder:
    """Knocks in every hand and never melds (plucks and throws): a pure chip donor to whoever it sits with."""

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        knock = [a for a in legal if isinstance(a, Knock)]
        if knock:
            return knock[0]
        passive = [a for a in legal if not isinstance(a, (MeldPlay, GoOnTop))]
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
