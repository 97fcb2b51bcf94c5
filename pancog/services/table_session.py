"""A table's values: how it was opened (:class:`TableConfig`), what is open in memory (:class:`TableSession`), what a
committed change returns (:class:`Applied`) and publishes when the table closes (:class:`TableClosed`), the table
errors players see, the hooks the composition root registers, and the dealers.

Split from :mod:`pancog.services.tables` (the service, the one path by which a table changes), which re-exports
every name here: import them from there.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pancog.game import engine
from pancog.game.actions import Action, StartHand, Timeout
from pancog.game.errors import PanError
from pancog.game.events import Event
from pancog.game.i18n import N_
from pancog.game.rules import PRESET_EDITION, PRESETS, Rules
from pancog.game.state import Phase, TableState
from pancog.infra.storage.base import BankScope, StorageTx
from pancog.services.chips import HandChips, HandResult


class NoTableHere(PanError):
    code = "no_table"

    def __init__(self) -> None:
        super().__init__(N_("There is no open Pan table here. Open one with /pan open."))


class TableAlreadyOpen(PanError):
    code = "table_already_open"

    def __init__(self) -> None:
        super().__init__(N_("A Pan table is already open here. Use /pan join to sit down."))


class NotSeated(PanError):
    code = "not_seated"

    def __init__(self) -> None:
        super().__init__(N_("You are not seated at this table. Use /pan join to sit down."))


class NotHost(PanError):
    code = "not_host"

    def __init__(self) -> None:
        super().__init__(N_("Only the host or a server moderator can do that."))


class StaleAction(PanError):
    """A system action was computed for a state that has since moved on (``expect_seq`` mismatch)."""

    code = "stale_action"

    def __init__(self) -> None:
        super().__init__(N_("The table has moved on since that was decided."))


class BuyInTooSmall(PanError):
    code = "buy_in_too_small"

    def __init__(self, needed: int, available: int, doubles: bool) -> None:
        message = (
            N_(
                "You need at least {needed} chips to play doubles at this table; your bank has {available}. "
                "Claim /pan daily or ask a moderator."
            )
            if doubles
            else N_(
                "You need at least {needed} chips to sit at this table; your bank has {available}. "
                "Claim /pan daily or ask a moderator."
            )
        )
        super().__init__(message, needed=f"{needed:,}", available=f"{available:,}")
        self.needed = needed
        self.available = available


# --------------------------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    """How a table was opened: a rules preset plus integer overrides (stakes, seats, turn time)."""

    preset: str = "california"
    overrides: tuple[tuple[str, int], ...] = ()
    edition: int = PRESET_EDITION  # the presets' edition the table was opened under: it keeps those rules
    title: str = ""
    # computer players: a /pan practice table; an away person's seat played by the normal level.
    practice: bool = False
    away_bot: bool = False

    @classmethod
    def build(
        cls,
        preset: str | None = None,
        *,
        stakes: int | None = None,
        seats: int | None = None,
        turn_seconds: int | None = None,
        retire_forfeit: int | None = None,
        title: str = "",
        practice: bool = False,
        away_bot: bool = False,
    ) -> TableConfig:
        """A config; ``stakes`` sets the ante (chips per unit) and the 20-unit minimum buy-in; ``retire_forfeit`` is
        the chips beyond the ante a player pays into the tops to go on top (RULES G6: the ante only, or 2 chips).

        Raises:
            RuleViolation: unknown preset or an invalid value.
        """
        name = (preset or "california").strip().lower()
        overrides: dict[str, int] = {}
        if stakes is not None:
            overrides["ante_chips"] = stakes
            overrides["min_buyin_chips"] = 20 * stakes
        if seats is not None:
            overrides["max_players"] = seats
        if turn_seconds is not None:
            overrides["turn_timeout_seconds"] = turn_seconds
        if retire_forfeit is not None:
            overrides["retire_forfeit_chips"] = retire_forfeit
        config = cls(
            preset=name,
            overrides=tuple(sorted(overrides.items())),
            title=title,
            practice=practice,
            away_bot=away_bot,
        )
        config.rules()  # validate now
        return config

    def rules(self) -> Rules:
        return Rules.preset_of_edition(self.preset, self.edition, dict(self.overrides))

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "preset": self.preset,
            "overrides": dict(self.overrides),
            "edition": self.edition,
            "title": self.title,
        }
        # computer players: the table options, written only when set (older rows read as False).
        data.update({k: True for k in ("practice", "away_bot") if getattr(self, k)})
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> TableConfig:
        data: dict[str, Any] = json.loads(text)
        overrides = {str(k): int(v) for k, v in dict(data.get("overrides", {})).items()}
        return cls(
            preset=str(data.get("preset", "california")),
            overrides=tuple(sorted(overrides.items())),
            edition=int(data.get("edition", 1)),  # written before editions: the presets' first edition
            title=str(data.get("title", "")),
            practice=bool(data.get("practice", False)),
            away_bot=bool(data.get("away_bot", False)),
        )


def preset_or_default(name: str | None) -> str:
    """A known preset name (a guild default such as 'standard' that is not a preset means california)."""
    return name if name in PRESETS else "california"


# --------------------------------------------------------------------------------------------- sessions


@dataclass(slots=True, eq=False)
class TableSession:
    """One open table in memory. ``state`` is only replaced after its action committed."""

    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    config: TableConfig
    state: TableState
    board_message_id: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stacked: list[StartHand] = field(default_factory=list)  # test hook: the next deals
    snapshot_seq: int = 0  # the seq of the table's stored snapshot (0: none)
    scope: BankScope | None = None  # None: the guild's own banks
    # the hand in progress's chips, folded from the postings committed for it: each hand's HandResult
    chips: HandChips = field(init=False)

    def __post_init__(self) -> None:
        self.chips = HandChips(self.table_id, self.bank_scope)

    @property
    def rules(self) -> Rules:
        return self.state.rules

    @property
    def bank_scope(self) -> BankScope:
        """The ledger scope of the banks this table buys in from and cashes out to: its guild's, or the one it was
        opened with (practice chips, a tournament's chips, a chip league's bank season). ``guild_id`` is always the
        Discord guild, whatever the scope."""
        return self.scope if self.scope is not None else BankScope.guild(self.guild_id)

    def seat_of(self, user_id: int) -> int:
        """The seat index of ``user_id``. Raises :class:`NotSeated`."""
        seat = self.find_seat(user_id)
        if seat is None:
            raise NotSeated
        return seat

    def find_seat(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.state.seats):
            if seat is not None and seat.player_id == user_id:
                return index
        return None

    def player_ids(self) -> tuple[int, ...]:
        return tuple(s.player_id for s in self.state.seats if s is not None)

    @property
    def in_hand(self) -> bool:
        hand = self.state.hand
        return hand is not None and hand.phase is not Phase.OVER


@dataclass(frozen=True, slots=True)
class Applied:
    """One committed action: the table, the state before, the action and what it produced."""

    session: TableSession
    before: TableState
    action: Action
    transition: engine.Transition
    actor: int | None  # the user who asked, or None for the system
    # the hand's chip result when this action ended a hand (from the postings committed for the hand); None for any
    # other action, or for a hand whose deal this process did not see (the replay service rebuilds it from the log)
    result: HandResult | None = None

    @property
    def state(self) -> TableState:
        return self.transition.state

    @property
    def events(self) -> tuple[Event, ...]:
        return self.transition.events


class CloseReason(StrEnum):
    """Why a table closed (every reason publishes the same :class:`TableClosed`)."""

    HOST = "host"  # the host's /pan close
    MODERATOR = "moderator"  # a moderator's /pan close
    IDLE = "idle"  # no hand for the idle time (the turn clock)
    CHANNEL_DELETED = "channel_deleted"  # its channel or thread is gone
    SEASON_ENDED = "season_ended"  # its bank season ended (chip leagues)
    REFUSED = "refused"  # opened but could not be filled (a practice table whose seating was refused)
    TOURNAMENT = "tournament"  # a tournament broke or finished the table
    SYSTEM = "system"  # any other close without a person


@dataclass(frozen=True, slots=True)
class TableClosed:
    """A table closed and is gone from the service: its tops were shared and every stack went back to its bank
    (``cashouts``: user id -> chips returned), in one committed transaction."""

    session: TableSession
    reason: CloseReason
    cashouts: Mapping[int, int]
    actor: int | None  # the host or moderator who closed it, None for the system

    @property
    def table_id(self) -> int:
        return self.session.table_id


Listener = Callable[[Applied], None]
CloseListener = Callable[[TableClosed], None]
"""Told of every closed table, after the close committed (inside the table lock: keep it quick; it must not raise)."""
StandIn = Callable[[TableSession, Timeout], Action | None]
"""Computer players: given a system ``Timeout`` about to apply (inside the table lock), the move to play instead, or
None to keep the timeout."""
SeatGuard = Callable[[TableSession, int], None]
"""Who may sit at a table beyond the engine's rules: raises a PanError to refuse ``user_id`` (called first thing in
:meth:`TableService.join`, before any chip moves)."""
ResultNote = Callable[[StorageTx], Awaitable[str | None]]
SettlementHook = Callable[[TableSession, TableState, engine.Transition, str], ResultNote | None]
"""Chip leagues: given an action about to commit (its state before, its transition and its action text),
optionally a result to record with it: ``note(tx)`` may read and returns the text stored on the action's journal row
(see :meth:`pancog.services.store.TableStore.commit_action`). Called inside the table lock; must not raise."""
Dealer = Callable[[TableSession], StartHand]


def random_deal(session: TableSession) -> StartHand:
    """A fresh random seed for the next hand (recorded in the action text, so the hand replays)."""
    return StartHand(seed=secrets.randbits(62))


def seeded_deals(seed: int) -> Dealer:
    """Reproducible deals for tests and benchmarks: the n-th deal of the process gets the n-th seed of ``seed``."""
    rng = random.Random(seed)

    def deal(session: TableSession) -> StartHand:
        return StartHand(seed=rng.getrandbits(62))

    return deal
