"""The real ``python bot.py`` killed with SIGKILL at many points of one hand, restarted each time, the hand finished.

The players are driven through the fake Discord. Before every move the test reads the table from the database
(as a fresh process would) and picks a greedy legal move for the player to act, as a slash command. Half the
kills land between moves, half while an interaction is in flight (it may or may not have committed). At the end:
the hand is over, the log replays to exactly the ledger's stacks (the right payments, nothing paid twice or lost),
the audit balances, and a button on a board posted by an earlier process still works.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pancog.game import engine
from pancog.game.actions import AddToMeld, Borrow, Discard, NewMeld, Pluck
from pancog.game.cards import format_cards
from pancog.game.state import Phase, Step, TableState
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableService
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeMessage
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
KILLS = 12
DEAL_SEED = "7"
MAX_MOVES = 1200  # a safety cap only: the deal is not stacked, so a hand may pass through the stock; progress
STALL_MOVES = 8  # is checked directly: the log must grow at least once every STALL_MOVES moves


class BotProcess:
    """``python bot.py`` against the fake; SIGKILL and start again on the same database."""

    def __init__(self, fake: FakeDiscord, harness: Harness, db: Path) -> None:
        self.fake = fake
        self.env = {
            **os.environ,
            "DISCORD_TOKEN": fake.token,
            "DISCORD_API_BASE": fake.api_base,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "TEST_GUILD_ID": str(harness.guild.id),
            "PAN_DB_PATH": str(db),
            "PAN_GUILD_READY_TIMEOUT": "0.05",
            "PAN_LOG_LEVEL": "WARNING",
            "PAN_RENDER_MODE": "process",  # the bot's default: render workers in processes, SIGKILLed with it
            # A pinned deal: its greedy hand runs long enough for every kill (an unpinned one ended after 7).
            "PAN_DEAL_SEED": DEAL_SEED,
        }
        self.process: asyncio.subprocess.Process | None = None
        self.stderr: list[str] = []

    async def start(self) -> None:
        self.fake.identified.clear()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "bot.py", cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        waiter = asyncio.ensure_future(self.fake.identified.wait())
        exited = asyncio.ensure_future(self.process.wait())
        # a failure deadline, never a synchronisation: a loaded machine (other suites on 2 cores) can take long
        done, _ = await asyncio.wait({waiter, exited}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if waiter not in done:
            waiter.cancel()
            raise AssertionError(f"bot did not connect: {await self._collect()}")

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        # asyncio's wait() also waits for the pipes to close: a render forkserver that outlived the bot (it must
        # not; a failure of pancog/infra/renderq/guard.py) would hold stderr open and hang this test without a bound
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 10)
        self.stderr.append(await self._collect())
        self.process = None

    async def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):  # it exited by itself: its stderr says why
                self.process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 10)
            self.stderr.append(await self._collect())
            self.process = None

    async def _collect(self) -> str:
        if self.process is None or self.process.stderr is None:
            return ""
        with contextlib.suppress(TimeoutError):
            return (await asyncio.wait_for(self.process.stderr.read(), 5)).decode()
        return ""


async def read_table(db: Path) -> tuple[TableState, int, list[str]]:
    """The open table as a fresh process would rebuild it: (state, table id, audit problems + book differences)."""
    async with SqliteStorage(db) as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        service = TableService(ledger, store)
        await service.load()
        (session,) = service.sessions
        problems = list((await ledger.audit()).problems) + await service.check_books(session.table_id)
        return session.state, session.table_id, problems


async def wait_for_board(
    harness: Harness, db: Path, ready: Callable[[str, list[str]], bool], *, not_id: int | None = None
) -> FakeMessage:
    """The table's board message once it satisfies ``ready(its words, button labels)`` and is not message ``not_id``
    (at most 10 s). The table's row is re-read at every poll: the bot posts a new board (a deal) when it gets to it,
    after the answers that the harness's ``idle`` waits on, since the bot is another process whose work the harness
    cannot see."""
    async with asyncio.timeout(10):
        while True:
            async with SqliteStorage(db) as storage:
                row = (await TableStore(storage).load_open_tables())[0].row
            message = harness.fake.messages.get(row.board_message_id) if row.board_message_id is not None else None
            if (
                message is not None
                and message.id != not_id
                and ready(message.seen().text, [b["label"] for b in message.buttons])
            ):
                return message
            await harness.idle()
            await asyncio.sleep(0.05)  # the bot coalesces board edits (one per second): poll the observable board


async def committed_after(db: Path, seq: int, timeout: float = 10.0) -> None:
    """Wait until the table's committed state is past ``seq`` (the move was stored), at most ``timeout`` s: a
    refused move commits nothing, and the caller's stall check (bounded by moves, not time) judges that."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while (await read_table(db))[0].seq <= seq:
                await asyncio.sleep(0.01)  # re-read the database: another process writes it


def greedy_command(state: TableState) -> tuple[int, str, dict[str, Any]]:
    """(seat, slash command, options) of a greedy legal move for the player to act."""
    seat = engine.to_act(state)
    hand = state.hand
    assert seat is not None and hand is not None
    if hand.phase is Phase.DECLARING:
        return seat, "knock", {}
    turn = hand.turn
    assert turn is not None and hand.make_good is None
    if turn.step is Step.DRAW:
        return seat, "draw" if engine.can(state, Pluck(seat=seat)) else "take", {}
    plays = engine.plays(state, seat)
    for action, _ in plays:
        if isinstance(action, NewMeld) and action.cards:
            return seat, "meld", {"cards": format_cards(action.cards)}
        if isinstance(action, AddToMeld) and action.split is None:
            options: dict[str, Any] = {"meld": action.meld}
            if action.cards:
                options["cards"] = format_cards(action.cards)
            return seat, "add", options
    for action, _ in plays:  # a taken card may be usable only by borrowing (the menu's only play then)
        if isinstance(action, Borrow) and len(action.taken) == 1:
            ((meld, card),) = action.taken
            options = {"meld": meld, "card": str(card)}
            if action.cards:
                options["cards"] = format_cards(action.cards)
            return seat, "borrow", options
    for action, _ in plays:
        if isinstance(action, Discard):
            card = action.card or turn.drawn
            return seat, "discard", {"card": str(card)}
    raise AssertionError(f"no greedy move for seat {seat} in step {turn.step}: {[a for a, _ in plays]}")


async def test_kill_restart_sigkill_through_one_hand(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    rng = random.Random(2026)
    harness = Harness(fake_discord, members=2)
    db = tmp_path / "pan.sqlite3"
    bot = BotProcess(fake_discord, harness, db)
    players = harness.users
    await bot.start()
    try:
        opened = (await harness.slash(players[0], "pan open")).message
        assert opened is not None
        await harness.slash(players[1], "pan join")
        await harness.slash(players[0], "pan start")
        await harness.idle()
        # posted by the first process for hand 1 (#14.4: the /pan open board lost its buttons when it was posted).
        # Not the /pan open board itself: until the deal's board is posted, that one reads "... waiting to deal hand
        # 1." with its buttons (the clean-clone CI at cbb5d4c took it, then found it stripped at the end)
        open_board = await wait_for_board(
            harness, db, lambda content, labels: "hand 1" in content and bool(labels), not_id=opened.id
        )
        kills = moves = 0
        last_seq, last_progress = -1, 0
        while True:
            state, _, problems = await read_table(db)
            assert problems == [], problems
            if state.hand is None:
                break
            moves += 1
            assert moves <= MAX_MOVES, "the hand never ended"
            if state.seq != last_seq:
                last_seq, last_progress = state.seq, moves
            assert moves - last_progress <= STALL_MOVES, f"no committed action in {STALL_MOVES} moves (seq {state.seq})"
            seat, command, options = greedy_command(state)
            seated = state.seats[seat]
            assert seated is not None
            user = next(u for u in players if u.id == seated.player_id)
            kill_now = kills < KILLS and moves % 3 == 1
            if kill_now and kills % 2:  # SIGKILL while the interaction is in flight
                pending = asyncio.ensure_future(harness.slash(user, command, settle=False, timeout=10, **options))
                await asyncio.sleep(rng.uniform(0.0, 0.05))  # an arbitrary moment, not a synchronisation
                await bot.kill()
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
                for interaction in fake_discord.interactions.values():
                    if not interaction.settled:
                        interaction.abandoned = True  # killed with it; the player would simply retry
            else:
                reply = await harness.slash(user, command, **options)
                assert reply.ephemeral or "your turn" in reply.text, reply.text  # #14.1: a turn ping is public
                await committed_after(db, state.seq)  # the bot is another process: wait on the committed action
                if kill_now:
                    await bot.kill()
            if kill_now:
                kills += 1
                await bot.start()
        assert kills >= 10, f"the hand ended after {moves} moves"
        print(f"hand finished after {moves} moves and {kills} kills")
        state, _, problems = await read_table(db)
        assert problems == [], problems
        last = state.last_hand
        assert last is not None and last.hand_no == 1 and state.hand_no == 1
        # chips conserved: banks + stacks + tops = the starting chips of both players
        async with SqliteStorage(db) as storage:
            ledger = ChipLedger(storage)
            bank_total = sum([await ledger.balance(harness.guild.id, u.id) for u in players])
        stacks = sum(s.stack for s in state.seats if s is not None)
        assert bank_total + stacks + state.singles_tops + state.doubles_tops == 2 * 1000
        # a button on a message posted by the first process still works after 10+ kills
        await wait_for_board(harness, db, lambda content, labels: "Start" in labels)
        assert "Start" in [btn["label"] for btn in open_board.buttons]
        reply = await harness.click(players[1], open_board, "Start")
        assert reply.ephemeral or "your turn" in reply.text
        state, _, problems = await read_table(db)
        assert problems == [] and state.hand is not None and state.hand_no == 2
        # a move whose board edit never happened (no permission), then SIGKILL: the next process re-renders it
        # the deal's board (a new message: hand 1's board also reads "... waiting to deal hand 2." before it)
        await wait_for_board(harness, db, lambda content, labels: "hand 2" in content, not_id=open_board.id)
        seat, command, options = greedy_command(state)
        fake_discord.deny(harness.channel)
        user = next(u for u in players if u.id == state.seats[seat].player_id)  # type: ignore[union-attr]
        await harness.slash(user, command, **options)
        await bot.kill()
        fake_discord.deny(harness.channel, False)
        state, _, _ = await read_table(db)
        waiting = next(u for u in players if u.id == state.seats[engine.to_act(state)].player_id)  # type: ignore[index,union-attr]
        await bot.start()
        await wait_for_board(harness, db, lambda content, labels: f"**{waiting.name}** to act" in content)
    except BaseException as failed:
        exited = bot.process.returncode if bot.process is not None else None
        await bot.stop()
        stderr = "\n---\n".join(bot.stderr)
        failed.add_note(f"the bot's exit code: {exited}; its stderr, process by process:\n{stderr}")
        raise
    await bot.stop()
    log = "\n".join(bot.stderr)
    assert "Traceback" not in log and " ERROR " not in log, log
    assert fake_discord.unhandled == [] and fake_discord.violations == []
