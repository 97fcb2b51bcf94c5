"""Discord REST calls per player action, DMs per hand and interaction ack latency, through the fake Discord.

N concurrent tables of P greedy players each play H hands by slash commands (the real bot, the real
discord.py, a local fake Discord). Counted from the fake's record of every REST call:

- calls against the 50/s global limit (channel messages, edits, DMs) vs exempt (interaction endpoints);
- interaction calls per action split into the answer to the acting player and the turn pings (#14.1/#14.10);
- globally-counted calls per player action, with and without the DMs of the deal;
- DMs per hand; interaction acknowledgement latency p50/p99; failed interactions.

    .venv/bin/python -m bench.discord_calls            # 50 tables x 6 players, 1 hand each
    .venv/bin/python -m bench.discord_calls --tables 5 --hands 1 --max-actions 60
    .venv/bin/python -m bench.discord_calls --tables 10 --players 4 --pace 1.5   # human pace: one action per
                                                                                 # 1.5 s per table (no coalescing)
    .venv/bin/python -m bench.discord_calls --tables 10 --players 4 --pace 8 --max-actions 40  # slow: pings go out
    ... --ping-after 0                                                           # the server pings at once
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pancog.adapter.runtime import runtime_of
from pancog.game import engine
from pancog.game.actions import (
    AddToMeld,
    Borrow,
    Discard,
    GoOnTop,
    Knock,
    NewMeld,
    Pluck,
    TakeOption,
)
from pancog.services.tables import TableSession
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord

MAX_MELDS_PER_TURN = 4  # greedy melding can cycle (borrow a card, add it back): stop after a few and discard


def greedy_command(session: TableSession, seat: int, *, melds_ok: bool = True) -> tuple[str, dict[str, Any]] | None:
    """The best legal play that a slash command can express (meld plays come first, best first)."""
    state = session.state
    for action in engine.legal_actions(state, seat):
        if not melds_ok and isinstance(action, NewMeld | AddToMeld | Borrow):
            continue
        match action:
            case Knock():
                return "knock", {}
            case NewMeld() if action.cards:
                return "meld", {"cards": " ".join(str(c) for c in action.cards)}
            case AddToMeld() if action.split is None:
                return "add", {"meld": action.meld, "cards": " ".join(str(c) for c in action.cards)}
            case Borrow() if len(action.taken) == 1 and action.cards:
                meld, card = action.taken[0]
                return "borrow", {"meld": meld, "card": str(card), "cards": " ".join(str(c) for c in action.cards)}
            case TakeOption():
                return "take", {}
            case Pluck():
                return "draw", {}
            case Discard():
                hand = state.hand
                card = action.card or (hand.turn.drawn if hand and hand.turn else None)
                return ("discard", {"card": str(card)}) if card is not None else None
            case GoOnTop():
                return "sluff", {}
            case _:
                continue
    return None


async def play_table(
    h: Harness,
    channel: FakeChannel,
    players: list[FakeUser],
    hands: int,
    max_actions: int,
    stats: dict[str, Any],
    pace: float = 0.0,
) -> None:
    rt = runtime_of(h.bot)
    await h.slash(players[0], "pan open", channel=channel, settle=False)
    for p in players[1:]:
        await h.slash(p, "pan join", channel=channel, settle=False)
    session = rt.tables.in_channel(channel.id)
    by_id = {p.id: p for p in players}
    for _ in range(hands):
        await h.slash(players[0], "pan start", channel=channel, settle=False)
        stats["hands"] += 1
        actions = 0
        melds = 0
        last_seat = None
        while session.state.hand is not None and actions < max_actions:
            seat = engine.to_act(session.state)
            if seat is None:
                break
            if seat != last_seat:
                melds, last_seat = 0, seat
            s = session.state.seat(seat)
            assert s is not None
            found = greedy_command(session, seat, melds_ok=melds < MAX_MELDS_PER_TURN)
            if found is None and melds >= MAX_MELDS_PER_TURN:
                found = greedy_command(session, seat)
            if found is not None and found[0] in ("meld", "add", "borrow"):
                melds += 1
            elif found is not None and found[0] == "discard":
                melds = 0
            if found is None:
                break
            command, options = found
            if pace:
                await asyncio.sleep(pace)  # a person takes a moment: every action gets its own board edit
            reply = await h.slash(by_id[s.player_id], command, channel=channel, settle=False, **options)
            stats["latency"].append(reply.latency or 0.0)
            stats["answers"].append(reply.interaction.id)
            public_ping = not reply.ephemeral and "your turn" in reply.text
            if (not reply.ephemeral and not public_ping) or "Something went wrong" in reply.text:
                stats["failed"] += 1
            actions += 1
            stats["actions"] += 1
        if session.state.hand is not None:  # cap reached: finish the hand by everyone leaving is not needed
            stats["unfinished"] += 1
            break


def is_ping(call: Any) -> bool:
    """A message that mentions one member (a turn ping): its allowed_mentions name a user."""
    body = call.payload or {}
    data = body.get("data") if isinstance(body.get("data"), dict) else body
    return call.method == "POST" and bool(((data or {}).get("allowed_mentions") or {}).get("users"))


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=1500, help="per hand (a safety cap)")
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (PAN_DEAL_SEED), for reproducible hands")
    parser.add_argument("--pace", type=float, default=0.0, help="seconds a player waits before each action")
    parser.add_argument(
        "--ping-after", type=float, default=None, help="the server's turn-ping grace (default: the bot's, 5 s)"
    )
    args = parser.parse_args(argv)
    os.environ["PAN_DEAL_SEED"] = str(args.seed)
    logging.basicConfig(level=logging.WARNING)
    fake = FakeDiscord()
    await fake.start()
    channels = tuple(f"pan-{i}" for i in range(args.tables))
    h = Harness(fake, members=args.tables * args.players, channels=channels, timeout=60.0)
    with tempfile.TemporaryDirectory() as tmp:
        await h.start_bot(Path(tmp) / "bench.sqlite3")
        rt = runtime_of(h.bot)
        if args.ping_after is not None:
            await rt.display.set_ping_after(h.guild.id, args.ping_after)
        ping_after = (await rt.display.get(h.guild.id)).ping_after
        before = len(fake.calls)
        stats: dict[str, Any] = {"hands": 0, "actions": 0, "failed": 0, "unfinished": 0, "latency": [], "answers": []}
        started = time.perf_counter()
        await asyncio.gather(
            *(
                play_table(
                    h,
                    h.guild.channels[i],
                    h.users[i * args.players : (i + 1) * args.players],
                    args.hands,
                    args.max_actions,
                    stats,
                    args.pace,
                )
                for i in range(args.tables)
            )
        )
        while runtime_of(h.bot).busy():
            await asyncio.sleep(0.05)
        await h.idle(timeout=60)
        elapsed = time.perf_counter() - started
        calls = fake.calls[before:]
        dm_channels = {c.id for c in fake.channels.values() if c.type == 1}
        is_dm = [c.route == "POST /users/@me/channels" or c.channel_id in dm_channels for c in calls]
        global_calls = [c for c in calls if c.global_limit]
        global_no_dm = [c for c, dm in zip(calls, is_dm, strict=True) if c.global_limit and not dm]
        exempt = [c for c in calls if not c.global_limit]
        dms = sum(1 for c, dm in zip(calls, is_dm, strict=True) if dm and c.method == "POST" and "messages" in c.route)
        interactions = list(fake.interactions.values())
        unanswered = sum(1 for i in interactions if i.callback_type is None)
        lat = sorted(stats["latency"])
        actions = max(1, stats["actions"])
        by_route: dict[str, int] = {}
        for c in global_no_dm:
            by_route[c.route] = by_route.get(c.route, 0) + 1
        print(f"tables={args.tables} players={args.players} hands={stats['hands']} actions={stats['actions']}")
        print(f"elapsed={elapsed:.1f}s  actions/s={stats['actions'] / elapsed:.1f}")
        print(f"REST calls: {len(calls)} total, {len(global_calls)} global-limit, {len(exempt)} exempt")
        per_action = len(global_calls) / actions
        print(f"global calls per action: {per_action:.3f} (deal DMs excluded: {len(global_no_dm) / actions:.3f})")
        print(f"exempt calls per action: {len(exempt) / actions:.3f}")
        answers = set(stats["answers"])
        answer_calls = [c for c in exempt if c.interaction_id in answers]
        pings = [c for c in calls if is_ping(c)]
        ping_deletes = [c for c in calls if c.method == "DELETE"]
        print(
            f"interaction calls per action: {len(answer_calls) / actions:.3f} on the actions' own tokens "
            f"(pings carried: {sum(1 for c in pings if not c.global_limit)}, "
            f"ping deletes by token: {sum(1 for c in ping_deletes if not c.global_limit)})"
        )
        print(
            f"turn pings: {len(pings)} ({sum(1 for c in pings if c.global_limit)} counted), "
            f"deletes: {len(ping_deletes)} ({sum(1 for c in ping_deletes if c.global_limit)} counted)"
        )
        counters = rt.health.counters
        print(
            f"ping_after={ping_after:g}s: pings sent after the grace {counters['turn_pings_sent']}, "
            f"not needed (the player acted within it) {counters['turn_pings_unneeded']}"
        )
        print(f"DMs per hand: {dms / max(1, stats['hands']):.2f}")
        print(f"global calls (no DMs) by route: {by_route}")
        if lat:
            p50 = statistics.median(lat) * 1000
            p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
            print(f"ack latency: p50={p50:.1f} ms p99={p99:.1f} ms max={lat[-1] * 1000:.1f} ms")
        print(f"failed interactions: {stats['failed']}  unanswered: {unanswered}  unfinished: {stats['unfinished']}")
        print(f"problems seen by the fake: {h.problems()[:5]}")
        await h.close()
    await fake.stop()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
