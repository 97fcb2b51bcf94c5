"""Harness: drive the fake like Discord users would, run the real bot in-process, and catch failures.

``Harness`` owns a started ``FakeDiscord`` with one guild, its channels and N member users, and
optionally the real ``PanBot`` connected to it. Tests talk to it in user terms: ``slash``,
``autocomplete``, ``click``, ``select``, ``submit_modal``; then read ``messages``, ``dms``,
``ephemerals``. ``problems()`` lists everything that must fail a test (ERROR logs, unhandled routes,
payload-limit violations); the pytest plugin calls ``check()`` at teardown.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import components as v2
from . import limits
from .models import FakeChannel, FakeGuild, FakeInteraction, FakeMessage, FakeRole, FakeUser
from .server import CONTEXT_BOT_DM, CONTEXT_GUILD, CONTEXT_PRIVATE, GUILD_INSTALL, USER_INSTALL, FakeDiscord

# A failure deadline, never a synchronisation: the harness waits on exact state (an answer, quiescence), so a
# passing test never waits for it. It is generous because a starved machine (a full -n 4 suite on 2 cores next
# to other work) can take seconds to schedule a bot; ``PAN_TEST_TIMEOUT`` overrides it.
DEFAULT_TIMEOUT = float(os.environ.get("PAN_TEST_TIMEOUT", "30"))
POLL = 0.002  # how often the state-based predicates (REST in flight, runtime busy) are re-read; never a quiet window
ANSWER_DELAY_ENV = "PAN_TEST_ANSWER_DELAY"
SETTLE_POLL = 0.1  # a wait for an answer wakes this often to see whether the bot logged an error meanwhile

OPTION_TYPES = {3: "string", 4: "integer", 5: "boolean", 6: "user", 7: "channel", 8: "role", 10: "number"}
INSTALLS = {"guild": GUILD_INSTALL, "user": USER_INSTALL}
CONTEXT_NAMES = {CONTEXT_GUILD: "a guild", CONTEXT_BOT_DM: "the bot's DM", CONTEXT_PRIVATE: "a private channel"}


class InteractionFailed(AssertionError):
    """The bot did not answer an interaction in time, or logged an error while handling it."""


def answer_delay_from_env() -> float:
    """Seconds the in-process bot pauses after every answer (``PAN_TEST_ANSWER_DELAY``; 0 when unset)."""
    raw = os.environ.get(ANSWER_DELAY_ENV, "").strip()
    return float(raw) if raw else 0.0


_ANSWERS = (
    ("InteractionResponse", ("send_message", "defer", "edit_message", "send_modal")),
    ("Webhook", ("send", "edit_message")),
    ("Interaction", ("edit_original_response",)),
)


@contextlib.contextmanager
def answer_delay(seconds: float) -> Iterator[None]:
    """Make the bot pause ``seconds`` after every answer it gives (response, followup, edit of the original).

    The fake sees the interaction settled while the handler still has work ahead of it (store the board, seat
    the host, post the board): the window the old 50 ms quiet-period harness raced. A test-only hook: it wraps
    the discord.py methods the adapter answers with, so no production code knows about it.
    """
    import discord

    if seconds <= 0:
        yield
        return
    saved: list[tuple[type, str, Any]] = []
    for class_name, methods in _ANSWERS:
        cls = getattr(discord, class_name)
        for name in methods:
            original = cls.__dict__[name]

            def delayed(original: Any = original) -> Any:
                @functools.wraps(original)
                async def wrapper(*args: Any, **kwargs: Any) -> Any:
                    result = await original(*args, **kwargs)
                    await asyncio.sleep(seconds)  # the injected delay, not a synchronisation
                    return result

                return wrapper

            saved.append((cls, name, original))
            setattr(cls, name, delayed())
    try:
        yield
    finally:
        for cls, name, original in saved:
            setattr(cls, name, original)


class ErrorCollector(logging.Handler):
    """Collects ERROR+ log records from every logger (the bot, discord.py, pan.*, asyncio)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock:
            self.records.append(record)

    def describe(self, start: int = 0) -> list[str]:
        formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
        with self._lock:
            records = self.records[start:]
        return [formatter.format(r) for r in records]


@dataclass
class Reply:
    """What the bot answered to one interaction. Messages are live: later edits show up here."""

    interaction: FakeInteraction
    fake: FakeDiscord = field(repr=False)

    @property
    def type(self) -> int | None:
        """The callback type: 4 message, 5 deferred, 6 deferred update, 7 update, 8 choices, 9 modal."""
        return self.interaction.callback_type

    @property
    def message(self) -> FakeMessage | None:
        """The response message (after a defer: the followup that replaced it; after 6/7: the clicked one)."""
        oid = self.interaction.original_id
        return self.fake.messages.get(oid) if oid is not None else None

    @property
    def followups(self) -> list[FakeMessage]:
        return [self.fake.messages[i] for i in self.interaction.followup_ids]

    @property
    def all_messages(self) -> list[FakeMessage]:
        return [m for m in [self.message, *self.followups] if m is not None]

    @property
    def content(self) -> str:
        return self.message.content if self.message else ""

    @property
    def text(self) -> str:
        """Content and embed text of the response and every followup."""
        return "\n".join(m.text for m in self.all_messages)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.message.embeds if self.message else []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.message.components if self.message else []

    @property
    def files(self) -> list[tuple[str, bytes]]:
        return [f for m in self.all_messages for f in m.files]

    @property
    def pngs(self) -> list[bytes]:
        return [p for m in self.all_messages for p in m.pngs]

    @property
    def ephemeral(self) -> bool:
        return bool(self.message and self.message.ephemeral)

    def seen(self) -> v2.Seen:
        """What the user sees in the response message (Components V2): texts, images, files, buttons, selects."""
        assert self.message is not None, f"{self.interaction.label} has no response message"
        return self.message.seen()

    @property
    def choices(self) -> list[dict[str, Any]]:
        return self.interaction.choices or []

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.modal

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the bot's first callback (the ack latency)."""
        if self.interaction.callback_at is None:
            return None
        return self.interaction.callback_at - self.interaction.dispatched_at


class Harness:
    """A fake Discord with a guild ``guild``, channels, users ``users[0..n-1]``, and optionally the bot."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        members: int = 4,
        channels: tuple[str, ...] = ("general", "pan-1", "pan-2"),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.fake = fake
        self.timeout = timeout
        self.users: list[FakeUser] = [fake.add_user(f"player{i + 1}") for i in range(members)]
        self.moderator = fake.add_user("moderator")
        self.guild: FakeGuild = fake.add_guild("Pan Test", channels=channels, members=[self.moderator, *self.users])
        self.channel: FakeChannel = self.guild.channels[0]
        self.thread: FakeChannel = fake.add_thread(self.channel, "pan-thread")
        self.errors = ErrorCollector()
        self.bot: Any = None
        self.db_path: Path | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._bot_setup: Callable[[Any], Awaitable[None]] | None = None
        self._bot_options: dict[str, Any] = {}
        self._saved_endpoints: tuple[str, Any] | None = None
        self.bot_work: set[asyncio.Task[Any]] = set()
        """Every task the bot started to handle a gateway event (an interaction, a message, a deletion), not yet
        done: the harness awaits them, so work the bot does after answering is never raced."""
        self.work_probes: list[Callable[[], Mapping[str, int]]] = [self._runtime_work]
        """The in-flight work the bot exposes to tests, by kind (by default the Pan runtime's ``in_flight()``)."""

    # ------------------------------------------------------------------ lookups
    def channel_named(self, name: str) -> FakeChannel:
        return self.guild.text_channel(name)

    def user(self, name: str) -> FakeUser:
        return next(u for u in self.fake.users.values() if u.name == name)

    def messages(self, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """Visible (non-ephemeral, not deleted) messages in a channel, oldest first."""
        return self.fake.channel_messages(channel or self.channel)

    def last_message(self, channel: FakeChannel | None = None) -> FakeMessage:
        found = self.messages(channel)
        assert found, f"no messages in #{(channel or self.channel).name}"
        return found[-1]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages the bot sent to ``user`` by DM (text via ``.text``, PNG bytes via ``.pngs``)."""
        channel = self.fake.dm_channel(user)
        return self.fake.channel_messages(channel) if channel else []

    def ephemerals(self, user: FakeUser) -> list[FakeMessage]:
        """Every ephemeral message only ``user`` could see, oldest first."""
        return [m for m in self.fake.messages.values() if m.ephemeral and m.visible_to == user.id and not m.deleted]

    @staticmethod
    def seen(message: FakeMessage) -> v2.Seen:
        """What a person sees in a Components V2 message, in reading order: ``texts`` (and ``text``), ``images``
        (attachment name, bytes, alt text), ``files``, ``buttons``, ``selects``."""
        return message.seen()

    # ------------------------------------------------------------------ places and people
    def plain_member(self, *users: FakeUser) -> None:
        """These members lose Manage Server (and every other moderator permission): their interactions carry a
        plain member's permissions (view, send, read history, use application commands), so the bot's moderator
        checks refuse them. By default every member's interactions carry every permission."""
        plain = (1 << 10) | (1 << 11) | (1 << 16) | (1 << 31) | (1 << 38)
        for user in users:
            self.fake.member_permissions[user.id] = plain

    def set_locale(self, user: FakeUser, locale: str, guild: FakeGuild | None = None) -> None:
        """The user's Discord client language (and, with ``guild``, that server's preferred locale): the
        ``locale`` / ``guild_locale`` of their interactions. Only Discord's locale codes exist (``es-ES``,
        ``es-419``, ...; there is no Tagalog)."""
        known = limits.DISCORD_LOCALES
        assert locale in known, f"{locale!r} is not a Discord locale; Discord's are {sorted(known)}"
        if guild is not None:
            guild.locale = locale
        else:
            user.locale = locale

    def guild_without_bot(self, name: str = "Elsewhere", members: list[FakeUser] | None = None) -> FakeGuild:
        """A guild the bot is not in, whose members (by default everybody) may have installed the app themselves.
        Its channels are invisible to the bot (403 / 50001); an interaction there can only be answered."""
        return self.fake.add_guild(name, members=members or [self.moderator, *self.users], bot_member=False)

    async def mark_interested(
        self, user: FakeUser, event_id: int, *, interested: bool = True, guild: FakeGuild | None = None
    ) -> None:
        """``user`` clicks "Interested" on a scheduled event of ``guild`` (default: the harness's guild), or takes it
        back: the event's users (``ScheduledEvent.users()``) change; GUILD_SCHEDULED_EVENT_USER_ADD/_REMOVE go out."""
        await self.fake.mark_interested(guild or self.guild, event_id, user, interested)

    def bot_dm(self, user: FakeUser) -> FakeChannel:
        """The user's DM with the bot (interaction context 1)."""
        return self.fake.ensure_dm(user)

    def private_channel(self, *users: FakeUser, group: bool = True) -> FakeChannel:
        """A group DM (or a DM between two users) without the bot (interaction context 2)."""
        return self.fake.add_private_channel(list(users), group=group)

    # ------------------------------------------------------------------ failure detection
    def problems(self) -> list[str]:
        found = [f"error log: {line}" for line in self.errors.describe()]
        found += [f"route not implemented by the fake: {r}" for r in self.fake.unhandled]
        found += [f"payload Discord would reject: {v}" for v in self.fake.violations]
        return found

    def check(self) -> None:
        """Raise AssertionError listing every problem (the plugin calls this at teardown)."""
        found = self.problems()
        if found:
            raise AssertionError("the fake Discord saw problems:\n  " + "\n  ".join(found))

    def forgive(self) -> list[str]:
        """Clear the recorded problems (for tests that provoke them on purpose); returns what was cleared."""
        found = self.problems()
        self.errors.records.clear()
        self.fake.unhandled.clear()
        self.fake.violations.clear()
        return found

    # ------------------------------------------------------------------ bot lifecycle
    async def start_bot(
        self,
        db_path: Path,
        *,
        setup: Callable[[Any], Awaitable[None]] | None = None,
        **options: Any,
    ) -> Any:
        """Start the real PanBot against the fake and wait for on_ready.

        ``setup(bot)`` runs in setup_hook before ``pancog`` loads and the tree syncs (test-only cogs).
        """
        import discord

        import bot as bot_module  # the entry point module at the repo root
        from pancog.infra.config import Config

        self.db_path, self._bot_setup, self._bot_options = db_path, setup, options
        if self._saved_endpoints is None:
            self._saved_endpoints = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        bot_module.apply_endpoint_overrides(self.fake.api_base, self.fake.gateway_url)
        cls = bot_module.PanBot
        if setup is not None:
            extra = setup

            class _BotWithTestCogs(bot_module.PanBot):  # type: ignore[name-defined,misc]
                async def setup_hook(self) -> None:
                    await extra(self)
                    await super().setup_hook()

            cls = _BotWithTestCogs
        kwargs = {"guild_ready_timeout": 0.05, **options}
        # The environment (PAN_BOT_DELAY, PAN_DEAL_SEED, ... set by a test) as bot.py reads it, on this test's
        # database and guild, without the allocator's timer.
        config = dataclasses.replace(
            Config.from_env(),
            db_path=str(db_path),
            database_url=None,
            test_guild_id=self.guild.id,
            malloc_trim_seconds=0.0,
        )
        self.bot = cls(config=config, **kwargs)
        self._track_gateway_work(self.bot)
        self._bot_task = asyncio.create_task(self.bot.start(self.fake.token), name="pan-bot")
        ready = asyncio.create_task(self.bot.wait_until_ready())
        done, _ = await asyncio.wait({self._bot_task, ready}, timeout=self.timeout, return_when="FIRST_COMPLETED")
        if ready not in done:
            ready.cancel()
            if self._bot_task in done:
                self._bot_task.result()  # re-raise the startup error
            raise InteractionFailed(f"bot not ready within {self.timeout}s; problems: {self.problems()}")
        return self.bot

    async def stop_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self._bot_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._bot_task, timeout=self.timeout)
        self.bot, self._bot_task = None, None

    async def restart(self) -> Any:
        """Close the bot and start a new PanBot on the same fake and the same DB file."""
        assert self.db_path is not None, "start_bot() first"
        await self.idle(ignore=("bots",))  # a computer turn still thinking is resumed by the new bot
        await self.stop_bot()
        return await self.start_bot(self.db_path, setup=self._bot_setup, **self._bot_options)

    async def close(self) -> None:
        await self.stop_bot()
        if self._saved_endpoints is not None:
            import discord

            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved_endpoints
            self._saved_endpoints = None

    # ------------------------------------------------------------------ waiting
    def _track_gateway_work(self, bot: Any) -> None:
        """Record the tasks discord.py starts for each gateway event (the command tree's invoker, a view's or
        dynamic item's dispatch, ``on_*`` listeners): every parser runs synchronously and creates its tasks
        before it returns, so the tasks that appear across one parser call are that event's work."""
        parsers: dict[str, Callable[[Any], None]] = bot._connection.parsers
        for event, parse in list(parsers.items()):

            def tracked(data: Any, parse: Callable[[Any], None] = parse) -> None:
                before = asyncio.all_tasks()
                try:
                    parse(data)
                finally:
                    for task in asyncio.all_tasks() - before:
                        self.bot_work.add(task)
                        task.add_done_callback(self.bot_work.discard)

            if event not in ("READY", "GUILD_CREATE", "RESUMED"):  # start-up: on_ready waits are not user work
                parsers[event] = tracked

    def _gateway_unread(self) -> bool:
        """The fake sent the bot's live gateway session an event the bot has not parsed yet (discord.py sets
        ``ws.sequence`` and runs the parser in one step, with no await between)."""
        ws = getattr(self.bot, "ws", None)
        session_id = getattr(ws, "session_id", None)
        if session_id is None:
            return False
        sent = self.fake.dispatched_seq(session_id)
        return sent is not None and (ws.sequence or 0) < sent

    def _runtime_work(self) -> Mapping[str, int]:
        if self.bot is None:
            return {}
        from pancog.adapter.runtime import runtime_of

        try:
            runtime = runtime_of(self.bot)
        except RuntimeError:  # the Pan extension is not loaded (yet, or any more)
            return {}
        return runtime.in_flight()

    def _waiting_on(self, ignore: Collection[str] = ()) -> str | None:
        """What the bot is still doing (None: quiescent). Reads state only, without awaiting: one snapshot."""
        if self.fake.busy():
            pending = [i.label for i in self.fake.interactions.values() if not i.settled and not i.abandoned]
            return f"REST calls in flight or retries pending; unanswered: {pending}"
        if self._gateway_unread():
            return "gateway events sent to the bot and not yet read"
        if any(not t.done() for t in self.bot_work):
            return "event handlers running: " + ", ".join(sorted(t.get_name() for t in self.bot_work if not t.done()))
        busy = {k: n for probe in self.work_probes for k, n in probe().items() if n and k not in ignore}
        return f"in-flight work the bot reports: {busy}" if busy else None

    async def idle(self, timeout: float | None = None, *, quiet: float = 0.0, ignore: Collection[str] = ()) -> None:
        """Wait until the bot is quiescent: no REST call in flight or retry pending, every interaction answered,
        every handler of a gateway event finished, and the bot's own in-flight work (``work_probes``) done.

        Handler tasks are awaited as tasks; the REST and runtime predicates are re-read every ``POLL`` s. Tests
        never pass ``quiet``: nothing is concluded from silence. Only a benchmark driving ``bot.py`` in another
        process (whose state the harness cannot see) asks for ``quiet`` s without REST calls or gateway events.
        ``ignore`` names kinds of reported work not to wait for (``"bots"``: a computer player told to think
        for a minute)."""
        limit = timeout or self.timeout
        deadline = time.monotonic() + limit

        def waiting_on() -> str | None:
            found = self._waiting_on(ignore)
            if found is None and time.monotonic() - self.fake.last_activity < quiet:
                return f"{quiet}s without REST calls (an out-of-process bot)"
            return found

        while (waiting := waiting_on()) is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise InteractionFailed(f"bot not idle after {limit}s; still waiting on: {waiting}")
            running = {t for t in self.bot_work if not t.done()}
            if running and not self.fake.busy():
                await asyncio.wait(running, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            else:
                await asyncio.sleep(POLL)

    async def until(self, ready: Callable[[], bool], what: str, timeout: float | None = None) -> None:
        """Wait until ``ready()`` holds (re-read every ``POLL`` s): for a state a test needs that no reply or
        quiescence marks, e.g. renders queued behind a slow worker. Fails naming ``what`` after ``timeout``."""
        limit = timeout or self.timeout
        deadline = time.monotonic() + limit
        while not ready():
            if time.monotonic() > deadline:
                raise InteractionFailed(f"{what}: not reached within {limit}s")
            await asyncio.sleep(POLL)

    async def _settle(self, interaction: FakeInteraction, timeout: float | None, settle: bool) -> Reply:
        limit = timeout or self.timeout
        deadline = time.monotonic() + limit
        errors_before = len(self.errors.records)
        while not interaction.settled:
            if len(self.errors.records) > errors_before:
                interaction.abandoned = True
                logged = "\n".join(self.errors.describe(errors_before))
                raise InteractionFailed(f"the bot logged an error while handling {interaction.label}:\n{logged}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                interaction.abandoned = True
                state = "deferred and never followed up" if interaction.loading else "never answered"
                raise InteractionFailed(
                    f"{interaction.label} (interaction {interaction.id}) was {state} within {limit}s; "
                    f"problems: {self.problems()}"
                )
            interaction.changed.clear()
            # asyncio.timeout, not wait_for: no task per wait (hundreds of players wait at once in the benchmarks)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(remaining, SETTLE_POLL)):
                    await interaction.changed.wait()
        if settle:
            await self.idle()
        return Reply(interaction, self.fake)

    # ------------------------------------------------------------------ user actions
    async def slash(
        self,
        user: FakeUser,
        command: str,
        /,
        *,
        channel: FakeChannel | None = None,
        timeout: float | None = None,
        settle: bool = True,
        install: str | None = None,
        **options: Any,
    ) -> Reply:
        """Invoke ``/command`` (``"pan open"`` is subcommand ``open`` of ``pan``) and wait for the answer.

        ``channel`` picks the context: a guild channel (0; a guild without the bot too), ``bot_dm(user)`` (1) or
        ``private_channel(...)`` (2). ``install`` is the installation the command comes through: ``"guild"`` (the
        server's) or ``"user"`` (the user's own); by default the guild's where the bot is, else the user's. The
        command must be one Discord would show there (its ``contexts`` and ``integration_types``)."""
        channel = channel or self.channel
        data, owners = await self._invocation(user, channel, command, options, install)
        interaction = await self.fake.create_interaction(
            type=2, user=user, channel=channel, data=data, label=f"/{command} by {user.name}", owners=owners
        )
        return await self._settle(interaction, timeout, settle)

    async def autocomplete(
        self,
        user: FakeUser,
        command: str,
        option: str,
        value: str,
        /,
        *,
        channel: FakeChannel | None = None,
        timeout: float | None = None,
        install: str | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """Type ``value`` into ``option`` of ``/command``; return the bot's choices ``[{name, value}]``."""
        channel = channel or self.channel
        data, owners = await self._invocation(user, channel, command, options, install, focused=(option, value))
        interaction = await self.fake.create_interaction(
            type=4,
            user=user,
            channel=channel,
            data=data,
            label=f"autocomplete /{command} {option}={value!r}",
            owners=owners,
        )
        reply = await self._settle(interaction, timeout, settle=False)
        if reply.type != 8:
            raise InteractionFailed(f"{interaction.label} answered with type {reply.type}, not 8 (choices)")
        return reply.choices

    async def click(
        self, user: FakeUser, message: FakeMessage, target: str, /, *, timeout: float | None = None, settle: bool = True
    ) -> Reply:
        """Click the button whose custom_id or label is ``target`` on ``message``."""
        button = next((b for b in message.buttons if target in (b.get("custom_id"), b.get("label"))), None)
        if button is None:
            have = [(b.get("label"), b.get("custom_id")) for b in message.buttons]
            raise AssertionError(f"no button {target!r} on message {message.id}; buttons: {have}")
        if button.get("disabled"):
            raise AssertionError(f"button {target!r} on message {message.id} is disabled")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self._component(user, message, data, f"click {target!r} by {user.name}", timeout, settle)

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        values: list[str],
        /,
        *,
        timeout: float | None = None,
        settle: bool = True,
    ) -> Reply:
        """Choose ``values`` in the select menu ``custom_id`` on ``message``."""
        menu = next((c for c in message.iter_components() if c.get("custom_id") == custom_id), None)
        if menu is None or menu.get("type") not in (3, 5, 6, 7, 8):
            raise AssertionError(f"no select {custom_id!r} on message {message.id}")
        allowed = {o["value"] for o in menu.get("options") or []}
        if menu.get("type") == 3 and not set(values) <= allowed:
            raise AssertionError(f"values {values} not among the options {sorted(allowed)} of {custom_id!r}")
        if not menu.get("min_values", 1) <= len(values) <= menu.get("max_values", 1):
            raise AssertionError(f"{len(values)} values outside min/max of select {custom_id!r}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": menu["type"], "values": values}
        return await self._component(
            user, message, data, f"select {custom_id!r}={values} by {user.name}", timeout, settle
        )

    async def submit_modal(
        self, user: FakeUser, reply: Reply, values: Mapping[str, Any], /, *, timeout: float | None = None
    ) -> Reply:
        """Fill in the modal the bot opened in ``reply`` and submit it (MODAL_SUBMIT, interaction type 5).

        ``values`` by custom_id: a string for a text input, a list for a select or checkbox group (FakeUser /
        FakeRole / FakeChannel for those selects, ``(filename, bytes)`` for a file upload), a string for a radio
        group, a bool for a checkbox; an input left out keeps what the modal pre-filled. A value the modal did not
        offer fails the test (``components.ModalRefused``): an option it does not have, a text over max_length, a
        required input left empty, a custom_id it does not have; so does a submit by someone it was not shown to."""
        modal = reply.modal
        assert modal is not None, f"{reply.interaction.label} did not open a modal"
        if user.id != reply.interaction.user_id:
            raise v2.ModalRefused(f"the modal of {reply.interaction.label} was shown to its invoker, not {user.name}")
        inputs = v2.modal_inputs(modal)
        resolved: dict[str, dict[str, Any]] = {}
        channel = self.fake.channels[reply.interaction.channel_id]
        guild = self.fake.guild_of(channel)
        converted: dict[str, Any] = {}
        for custom_id, value in values.items():
            kind = (inputs.get(custom_id) or {}).get("type")
            if kind in (5, 6, 7, 8, v2.FILE_UPLOAD) and isinstance(value, list | tuple):
                converted[custom_id] = [self._resolve(item, guild, resolved) for item in value]
            else:
                converted[custom_id] = value
        data: dict[str, Any] = {"custom_id": modal["custom_id"], "components": v2.modal_submission(modal, converted)}
        if resolved:
            data["resolved"] = resolved
        message = self.fake.messages.get(reply.interaction.message_id or 0)
        interaction = await self.fake.create_interaction(
            type=5,
            user=user,
            channel=channel,
            data=data,
            label=f"modal {modal['custom_id']!r} by {user.name}",
            message=message,
            origin=reply.interaction,
        )
        return await self._settle(interaction, timeout, settle=True)

    def _resolve(self, value: Any, guild: FakeGuild | None, resolved: dict[str, dict[str, Any]]) -> str:
        """The id a select (or file upload) submits for ``value``, with its ``resolved`` data."""
        if isinstance(value, FakeUser):
            return self._convert_user(value, guild, resolved)
        if isinstance(value, FakeChannel):
            return self._convert_channel(value, resolved)
        if isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_json()
            return str(value.id)
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], bytes):
            [stored] = self.fake.store_upload(str(value[0]), value[1])
            resolved.setdefault("attachments", {})[str(stored.id)] = stored.to_json()
            return str(stored.id)
        return str(value)

    async def _component(
        self,
        user: FakeUser,
        message: FakeMessage,
        data: dict[str, Any],
        label: str,
        timeout: float | None,
        settle: bool,
    ) -> Reply:
        if message.deleted:
            raise AssertionError(f"message {message.id} was deleted; it cannot be clicked")
        channel = self.fake.channels[message.channel_id]
        interaction = await self.fake.create_interaction(
            type=3, user=user, channel=channel, data=data, label=label, message=message
        )
        return await self._settle(interaction, timeout, settle)

    # ------------------------------------------------------------------ command payloads
    async def _invocation(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        install: str | None,
        focused: tuple[str, str] | None = None,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """``data`` and ``authorizing_integration_owners`` of a type 2/4 interaction, after checking that Discord
        would show the command there; roles named by role options are created in the guild (announced first)."""
        top, owners = self._visible_command(user, channel, command.strip().lstrip("/").split()[0], install)
        guild = self.fake.guild_of(channel)
        new_roles: list[FakeRole] = []
        data = self._build_command_data(top, guild, command, options, focused, new_roles)
        for role in new_roles:
            assert guild is not None
            await self.fake.role_created(guild, role)
        return data, owners

    def _visible_command(
        self, user: FakeUser, channel: FakeChannel, name: str, install: str | None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The synced command ``name`` as Discord resolves it for ``user`` in ``channel``, and the installation it
        comes through. A guild command exists only in its guild, through the guild install. A global command shows
        where its ``contexts`` (default: all three; only guilds with ``dm_permission`` false) include the channel's
        context and its ``integration_types`` (default: the app's ``install_types``) include the installation; the
        guild install reaches a guild only when the bot is in it, and never a private channel. A command Discord
        would hide fails the test."""
        fake = self.fake
        context = fake.context_of(channel)
        guild = fake.guild_of(channel)
        if install is None:
            install = "guild" if context == CONTEXT_BOT_DM or fake.bot_in(guild) else "user"
        assert install in INSTALLS, f"install must be 'guild' or 'user', not {install!r}"
        kind = INSTALLS[install]
        candidates = [c for c in fake.guild_commands.get(channel.guild_id or 0, []) if c["name"] == name]
        candidates += [c for c in fake.global_commands if c["name"] == name]
        candidates = [c for c in candidates if c.get("type", 1) == 1]
        if not candidates:
            names = sorted({c["name"] for c in [*fake.global_commands, *fake.guild_commands.get(self.guild.id, [])]})
            raise AssertionError(f"/{name} is not a synced command; synced: {names}")
        where = f"{CONTEXT_NAMES[context]} through the {install} install"
        # The guild install reaches the guild's channels when the bot is in it, and the bot's own DM.
        installed_here = context == CONTEXT_BOT_DM or (context == CONTEXT_GUILD and fake.bot_in(guild))
        reasons: list[str] = []
        for top in candidates:
            if "guild_id" in top:
                if kind != GUILD_INSTALL or context != CONTEXT_GUILD or not installed_here:
                    reasons.append("a guild command exists only in its guild, through the guild install")
                    continue
            else:
                contexts = top.get("contexts")
                if contexts is None:
                    contexts = [CONTEXT_GUILD] if top.get("dm_permission") is False else [0, 1, 2]
                types = top.get("integration_types")
                types = list(fake.install_types) if types is None else types
                if context not in contexts:
                    reasons.append(f"its contexts are {contexts}")
                    continue
                if kind not in types:
                    reasons.append(f"its integration_types are {types}")
                    continue
                if kind == GUILD_INSTALL and not installed_here:
                    reasons.append("the app is not installed there (the bot is not in it)")
                    continue
            if kind == GUILD_INSTALL:
                return top, {str(GUILD_INSTALL): str(channel.guild_id) if guild is not None else "0"}
            return top, {str(USER_INSTALL): str(user.id)}
        raise AssertionError(f"Discord would not show /{name} in {where}: {'; '.join(reasons)}")

    def _command_data(
        self,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        focused: tuple[str, str] | None = None,
    ) -> dict[str, Any]:
        """``data`` of a type 2/4 interaction from the guild install (for tests that dispatch it themselves)."""
        top, _ = self._visible_command(self.moderator, channel, command.strip().lstrip("/").split()[0], None)
        return self._build_command_data(top, self.fake.guild_of(channel), command, options, focused, [])

    def _build_command_data(
        self,
        top: dict[str, Any],
        guild: FakeGuild | None,
        command: str,
        options: dict[str, Any],
        focused: tuple[str, str] | None,
        new_roles: list[FakeRole],
    ) -> dict[str, Any]:
        """Build ``data`` for a type 2/4 interaction, validated against the synced command."""
        parts = command.strip().lstrip("/").split()
        spec_options: list[dict[str, Any]] = top.get("options") or []
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": 1}
        if "guild_id" in top:
            data["guild_id"] = top["guild_id"]
        container = data
        for part in parts[1:]:
            sub = next((o for o in spec_options if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                raise AssertionError(f"/{command}: {part!r} is not a subcommand of /{container['name']}")
            node: dict[str, Any] = {"name": part, "type": sub["type"], "options": []}
            container.setdefault("options", []).append(node)
            container, spec_options = node, sub.get("options") or []
        if any(o["type"] in (1, 2) for o in spec_options):
            raise AssertionError(f"/{command} needs a subcommand: {[o['name'] for o in spec_options]}")
        resolved: dict[str, dict[str, Any]] = {}
        values = dict(options)
        if focused is not None:
            values[focused[0]] = focused[1]
        built = []
        by_name = {o["name"]: o for o in spec_options}
        for name, value in values.items():
            spec = by_name.get(name)
            if spec is None:
                raise AssertionError(f"/{command} has no option {name!r}; options: {sorted(by_name)}")
            is_focused = focused is not None and name == focused[0]
            entry: dict[str, Any] = {"name": name, "type": spec["type"], "value": value}
            if is_focused:
                entry["focused"] = True
            else:
                entry["value"] = self._convert(command, spec, value, guild, resolved, new_roles)
            built.append(entry)
        missing = [o["name"] for o in spec_options if o.get("required") and o["name"] not in values]
        if missing and focused is None:
            raise AssertionError(f"/{command} is missing required options {missing}")
        container["options"] = built
        if resolved:
            data["resolved"] = resolved
        return data

    def _convert_user(self, user: FakeUser, guild: FakeGuild | None, resolved: dict[str, dict[str, Any]]) -> str:
        resolved.setdefault("users", {})[str(user.id)] = user.to_json()
        if guild is not None and user.id in guild.member_ids:
            member = {k: v for k, v in self.fake._member(user, guild).items() if k != "user"}
            resolved.setdefault("members", {})[str(user.id)] = member | {"permissions": "0"}
        return str(user.id)

    def _convert_channel(self, channel: FakeChannel, resolved: dict[str, dict[str, Any]]) -> str:
        data = channel.to_json(self.fake.users) | {"permissions": "0"}
        resolved.setdefault("channels", {})[str(channel.id)] = data
        return str(channel.id)

    def _convert(
        self,
        command: str,
        spec: dict[str, Any],
        value: Any,
        guild: FakeGuild | None,
        resolved: dict[str, dict[str, Any]],
        new_roles: list[FakeRole],
    ) -> Any:
        kind = spec["type"]
        converted: Any
        if kind == 3:
            converted = str(value)
        elif kind == 4:
            converted = int(value)
        elif kind == 5:
            converted = bool(value)
        elif kind == 10:
            converted = float(value)
        elif kind == 6:
            user = value if isinstance(value, FakeUser) else self.fake.users[int(value)]
            converted = self._convert_user(user, guild, resolved)
        elif kind == 7:
            channel = value if isinstance(value, FakeChannel) else self.fake.channels[int(value)]
            converted = self._convert_channel(channel, resolved)
        elif kind == 8:
            # A role option names a role of the guild: a FakeRole, or (role id, name) for one the test makes here
            # (created in the fake guild, so granting it works and GET member shows it).
            assert guild is not None, f"/{command}: a role option needs a guild"
            if isinstance(value, FakeRole):
                role = value
            else:
                role_id, name = value
                known = guild.roles.get(int(role_id))
                role = known or self.fake.add_role(guild, str(name), role_id=int(role_id))
                if known is None:
                    new_roles.append(role)
            resolved.setdefault("roles", {})[str(role.id)] = role.to_json()
            converted = str(role.id)
        else:
            raise AssertionError(f"/{command}: option type {kind} is not supported by the harness")
        choices = spec.get("choices")
        if choices and converted not in [c["value"] for c in choices]:
            raise AssertionError(f"/{command} {spec['name']}={converted!r} is not one of {choices}")
        return converted
