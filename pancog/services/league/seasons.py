"""The league's seasons room: start, end, roll over, standings, season banks, season roles, exclusions."""

from __future__ import annotations

from pancog.game.i18n import N_
from pancog.infra.storage.base import Account, BankScope, Posting, StorageTx
from pancog.services.ledger import held_in, post_transaction

from . import repo
from .boards import _ratings_map
from .digest import is_human
from .model import (
    DEFAULT_MODE,
    MAX_NAME,
    MAX_SEASON_DAYS,
    ROLE_GRANT,
    WINNER_PLACES,
    NoSeason,
    SeasonActive,
    SeasonInfo,
    SeasonInputError,
    SeasonMode,
)
from .ratings import Rating
from .recording import Recording
from .repo import SeasonRow, StandingRow, StatsRow


class Seasons(Recording):
    # ------------------------------------------------------------------ seasons

    async def start_season(
        self,
        guild_id: int,
        name: str,
        *,
        length_days: int | None = None,
        starting_chips: int | None = None,
        mode: SeasonMode = DEFAULT_MODE,
        role_id: int | None = None,
    ) -> SeasonRow:
        """Start the guild's next season (``role_id``: a role the adapter gives the top finishers when it ends).

        Raises:
            SeasonActive: a season is running.
            SeasonInputError: bad name, length, chips or mode.
        """
        name = _check_season_input(name, length_days, starting_chips, mode)
        async with self.storage.transaction() as tx:
            season = await self._start_in_tx(tx, guild_id, name, length_days, starting_chips, mode, role_id)
        self._seasons.pop(guild_id, None)
        return season

    async def _start_in_tx(
        self,
        tx: StorageTx,
        guild_id: int,
        name: str,
        length_days: int | None,
        starting_chips: int | None,
        mode: SeasonMode,
        role_id: int | None = None,
    ) -> SeasonRow:
        current = await repo.active_season(tx, guild_id)
        if current is not None:
            raise SeasonActive(current.name)
        if starting_chips is None:
            settings = await tx.get_settings(guild_id)
            starting_chips = settings.starting_chips if settings is not None else 1000
        now = int(self._clock())
        number = await repo.last_season_number(tx, guild_id) + 1
        row = SeasonRow(
            guild_id=guild_id,
            number=number,
            name=name,
            mode=mode,
            starting_chips=starting_chips,
            scope_id=0,
            status="active",
            started_at=now,
            ends_at=now + length_days * 86_400 if length_days else None,
            ended_at=None,
            champion_id=None,
            role_id=role_id,
        )
        await repo.insert_season(tx, row)
        created = await repo.get_season(tx, guild_id, number)
        if created is None:  # pragma: no cover - inserted just above under the write lock
            raise RuntimeError("season row vanished")
        if mode == "bank":  # the season scope's "starting chips": what the ledger issues to a new season bank
            await self.ledger.set_scope_chips(tx, created.bank_scope, starting_chips=starting_chips, daily_amount=0)
            # The last season's players get their new season bank now, in this transaction, through the ledger
            # (journal start:<scope>:<user>, the one a first join would write); anyone else on first use.
            returning = await repo.season_players(tx, guild_id, number - 1) if number > 1 else []
            for user in returning:
                await self.ledger.issue_starting_chips(tx, created.bank_scope, user)
        return created

    async def end_season(self, guild_id: int) -> SeasonInfo:
        """End the running season: archive its final standings, record the champion, close the season banks.

        Raises:
            NoSeason: no season is running.
        """
        await self.drain()
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            info = await self._end_in_tx(tx, season)
        self._seasons.pop(guild_id, None)
        return info

    async def rollover(
        self,
        guild_id: int,
        from_number: int,
        name: str,
        *,
        length_days: int | None = None,
        starting_chips: int | None = None,
        mode: SeasonMode = DEFAULT_MODE,
    ) -> SeasonRow:
        """End season ``from_number`` (if still running) and start the next one, in ONE transaction.

        Idempotent and crash-safe: a retry after a crash either finds nothing done (the transaction rolled back) or
        finds season ``from_number + 1`` and returns it unchanged.

        Raises:
            NoSeason: season ``from_number`` does not exist.
            SeasonInputError: bad name, length, chips or mode.
        """
        name = _check_season_input(name, length_days, starting_chips, mode)
        await self.drain()
        async with self.storage.transaction() as tx:
            following = await repo.get_season(tx, guild_id, from_number + 1)
            if following is not None:
                return following
            season = await repo.get_season(tx, guild_id, from_number)
            if season is None:
                raise NoSeason
            if season.status == "active":
                await self._end_in_tx(tx, season)
            started = await self._start_in_tx(tx, guild_id, name, length_days, starting_chips, mode)
        self._seasons.pop(guild_id, None)
        return started

    async def _end_in_tx(self, tx: StorageTx, season: SeasonRow) -> SeasonInfo:
        await self._drain_in_tx(tx)  # every hand committed before the end counts in the final standings
        rows = await self._live_standings(tx, season)
        now = int(self._clock())
        champion = rows[0].user_id if rows else None
        await repo.insert_standings(tx, season.guild_id, season.number, rows)
        await repo.end_season(tx, season.guild_id, season.number, now, champion)
        if season.mode == "bank":
            # An ended season issues nothing more (a late join at one of its tables finds no starting chips).
            await self.ledger.set_scope_chips(tx, season.bank_scope, starting_chips=0, daily_amount=0)
            balances = await repo.bank_balances(tx, season.bank_scope)
            postings: list[Posting] = []
            for user, amount in sorted(balances.items()):
                if amount > 0:
                    postings += [
                        Posting(Account.bank(season.bank_scope, user), -amount),
                        Posting(Account.issued(season.bank_scope), amount),
                    ]
            if postings:
                await post_transaction(
                    tx,
                    postings,
                    key=f"season:{season.guild_id}:{season.number}:close",
                    reason="season ended: season banks closed",
                    actor="system",
                    now=float(now),
                )
        ended = await repo.get_season(tx, season.guild_id, season.number)
        exclusions = await repo.exclusions(tx, season.guild_id, season.number)
        info = SeasonInfo(season=ended or season, standings=tuple(rows), exclusions=tuple(exclusions))
        await self._owe_roles(tx, info)  # in the ending transaction: owed if and only if the season ended
        return info

    @staticmethod
    def role_prefix(guild_id: int, number: int) -> str:
        """The outbox key prefix of a season's role grants (``season:G:N:role:U`` per winner)."""
        return f"season:{guild_id}:{number}:role:"

    async def _owe_roles(self, tx: StorageTx, info: SeasonInfo) -> list[str]:
        """Owe the season's role (if it has one) to each human placed 1..:data:`WINNER_PLACES`, one outbox item per
        winner keyed ``season:G:N:role:U``: a retried end owes nothing twice. Returns the keys."""
        season = info.season
        if self.outbox is None or season.role_id is None:
            return []
        keys = []
        for row in info.standings:
            if row.place > WINNER_PLACES or not is_human(row.user_id):
                continue
            key = self.role_prefix(season.guild_id, season.number) + str(row.user_id)
            payload = {
                "role_id": season.role_id,
                "user_id": row.user_id,
                "season": season.number,
                "place": row.place,
                "reason": f"Pan season {season.number} top finisher",  # the server's audit log
            }
            await self.outbox.enqueue(tx, key=key, guild_id=season.guild_id, kind=ROLE_GRANT, payload=payload)
            keys.append(key)
        return keys

    async def season_roles(self, guild_id: int, number: int | None = None) -> tuple[SeasonRow, list[str]]:
        """The outbox keys of an ended season's role grants (``number`` None: the latest ended season), owing them
        now if the season ended before the outbox existed (or its items were pruned): a moderator's retry always
        has something to re-drive. Raises :class:`NoSeason` when there is no such ended season."""
        async with self.storage.transaction() as tx:
            if number is None:
                ended = [row for row in await repo.seasons(tx, guild_id) if row.status == "ended"]
                season = max(ended, key=lambda row: row.number) if ended else None
            else:
                season = await repo.get_season(tx, guild_id, number)
            if season is None or season.status != "ended":
                raise NoSeason
            rows = await repo.standings(tx, guild_id, season.number)
            info = SeasonInfo(season=season, standings=tuple(rows), exclusions=())
            keys = await self._owe_roles(tx, info)
        return season, keys

    async def season_bank(self, guild_id: int, user_id: int) -> int:
        """A player's season bank in a 'bank' season (issued the season's starting chips on first use, through the
        ledger: ``ChipLedger.ensure_player`` on the season's scope, the same call a table's join makes).

        Raises:
            NoSeason: no season is running, or it measures net chips on the ordinary bank.
        """
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
        if season is None or season.mode != "bank":
            raise NoSeason
        return await self.ledger.ensure_player(season.bank_scope, user_id)

    async def active_season(self, guild_id: int) -> SeasonRow | None:
        """The guild's running season, None between seasons."""
        async with self.storage.transaction(write=False) as tx:
            return await repo.active_season(tx, guild_id)

    async def table_scope(self, guild_id: int) -> BankScope:
        """The ledger scope of the banks a new cash table of ``guild_id`` uses (``TableService.open_table(scope=…)``;
        the table itself stays the guild's): the running bank season's, so buy-ins and cash-outs use the season
        banks; else the guild's own. Hands at such a table are recorded for the guild and that season."""
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
        return season.bank_scope if season is not None and season.mode == "bank" else BankScope.guild(guild_id)

    def forget_season(self, guild_id: int) -> None:
        """Drop the cached running season of ``guild_id`` (another process ended or started one)."""
        self._seasons.pop(guild_id, None)

    async def due_seasons(self) -> list[SeasonRow]:
        """Running seasons whose planned end has passed (the adapter's loop ends or rolls them over)."""
        async with self.storage.transaction(write=False) as tx:
            return await repo.due_seasons(tx, int(self._clock()))

    async def season_info(self, guild_id: int, number: int | None = None) -> SeasonInfo:
        """The running season (``number`` None) or a past one, with its standings and exclusions.

        Raises:
            NoSeason: no such season.
        """
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = (
                await repo.active_season(tx, guild_id)
                if number is None
                else await repo.get_season(tx, guild_id, number)
            )
            if season is None:
                raise NoSeason
            if season.status == "ended":
                rows = await repo.standings(tx, guild_id, season.number)
            else:
                rows = await self._live_standings(tx, season)
            exclusions = await repo.exclusions(tx, guild_id, season.number)
        return SeasonInfo(season=season, standings=tuple(rows), exclusions=tuple(exclusions))

    async def seasons(self, guild_id: int) -> list[SeasonRow]:
        async with self.storage.transaction(write=False) as tx:
            return await repo.seasons(tx, guild_id)

    async def _live_standings(self, tx: StorageTx, season: SeasonRow) -> list[StandingRow]:
        """Standings: by season bank ('bank' mode) or by net chips won in the season ('net'); exclusions left out."""
        excluded = {u for u, _, _, _ in await repo.exclusions(tx, season.guild_id, season.number)}
        stats = {s.user_id: s for s in await repo.all_stats(tx, season.guild_id, season.number)}
        found = await _ratings_map(tx, season.guild_id, season.number, list(stats))
        scores = {u: Rating(mu, sigma, n).score for u, (mu, sigma, n) in found.items()}
        chips: dict[int, int] = {}
        at_tables: dict[int, int] = {}
        if season.mode == "bank":  # what each has: his season bank plus his stacks at the season's open tables
            held = await held_in(tx, season.guild_id, season.bank_scope)
            chips = {u: bank + stack for u, (bank, stack) in held.items()}
            at_tables = {u: stack for u, (_, stack) in held.items()}
        users = [u for u in set(stats) | set(chips) if is_human(u) and u not in excluded]

        def key(u: int) -> tuple[int, int, int]:
            s = stats.get(u)
            net = s.net if s is not None else 0
            main = chips.get(u, 0) if season.mode == "bank" else net
            return (-main, -net, u)

        users.sort(key=key)
        rows = []
        for place, u in enumerate(users, start=1):
            s = stats.get(u) or StatsRow(user_id=u)
            rows.append(
                StandingRow(
                    place=place,
                    user_id=u,
                    net=s.net,
                    chips=chips.get(u, s.net),
                    score=scores.get(u, Rating().score),
                    wins=s.hands_won + s.tourneys_won,
                    at_tables=at_tables.get(u, 0),
                )
            )
        return rows

    # ------------------------------------------------------------------ moderation

    async def exclude(self, guild_id: int, user_id: int, moderator_id: int, reason: str) -> None:
        """Leave ``user_id``'s results out of the running season's standings, with a recorded reason.

        Raises:
            NoSeason: no season is running.
            SeasonInputError: an empty reason.
        """
        reason = reason.strip()
        if not reason or len(reason) > 500:
            raise SeasonInputError(N_("Give a reason (up to 500 characters) for the exclusion."))
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            await repo.exclude(tx, guild_id, season.number, user_id, moderator_id, reason, int(self._clock()))

    async def include(self, guild_id: int, user_id: int) -> bool:
        """Lift an exclusion from the running season; False if there was none. Raises :class:`NoSeason`."""
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            return await repo.include(tx, guild_id, season.number, user_id)


def _check_season_input(name: str, length_days: int | None, starting_chips: int | None, mode: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise SeasonInputError(N_("A season needs a name of 1 to {n} characters."), n=MAX_NAME)
    if length_days is not None and not 1 <= length_days <= MAX_SEASON_DAYS:
        raise SeasonInputError(N_("A season lasts 1 to {n} days."), n=MAX_SEASON_DAYS)
    if starting_chips is not None and not 0 <= starting_chips <= 10**12:
        raise SeasonInputError(N_("Starting chips must be a whole number from 0."))
    if mode not in ("net", "bank"):
        raise SeasonInputError(N_("The season mode is 'net' (ordinary bank) or 'bank' (a season bank)."))
    return name
