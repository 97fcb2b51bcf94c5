"""A seeded guild for the web tests and the benchmark: a season of hands played through the real table service,
the players' names stored as the bot stores them (one of them hostile), a shared finished hand, a tournament in
registration, an archived season, and a table with a hand in progress (the leakage test's oracle knows its cards and
its seed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pancog.ai import make_player
from pancog.game.cards import Card
from pancog.game.events import CardsDealt
from pancog.infra.storage.base import Storage
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.names import Names
from pancog.services.store import TableStore
from pancog.services.tables import Applied, TableConfig, TableService, seeded_deals
from pancog.services.tournaments.model import TournamentConfig
from pancog.services.tournaments.service import TournamentService
from pancog.services.web_access import WebAccess
from tests.services.league.conftest import Clock
from tests.support.league_play import play_hands
from tests.support.wiring import wire_league

GUILD = 4242
OTHER_GUILD = 4343
HOSTILE = '<script>alert("pwn")</script><img src=x onerror=alert(1)>&amp;"\'`'
NAMES = {101: "Rosa", 102: HOSTILE, 103: "Big Eddie", 104: "Lupe"}


@dataclass(slots=True)
class LiveHand:
    """What only the oracle may know: the hand in progress, its deal's seed and every dealt hand."""

    table_id: int
    hand_no: int
    seed: int
    dealt: dict[int, tuple[Card, ...]] = field(default_factory=dict)

    def __call__(self, applied: Applied) -> None:
        if applied.session.table_id != self.table_id:
            return
        for e in applied.events:
            if isinstance(e, CardsDealt):
                seat = applied.state.seat(e.seat)
                if seat is not None:
                    self.dealt[seat.player_id] = e.cards


@dataclass(slots=True, kw_only=True)
class Seeded:
    token: str
    other_token: str
    tables: list[int]
    shared: tuple[int, int]  # (table, hand) shared by its player
    unshared: tuple[int, int]  # a finished hand nobody shared
    tournament: int
    live: LiveHand
    players: tuple[int, ...] = tuple(NAMES)


async def store_names(storage: Storage, users: tuple[int, ...]) -> None:
    """The players' names, as the bot stores them when it sees them (``member_names``)."""
    names = Names(storage)
    for user in users:
        names.seen(GUILD, user, NAMES[user])
    await names.flush()


async def seed(storage: Storage, *, hands: int = 6, tables: int = 2, seed_no: int = 5) -> Seeded:
    """Fill ``storage`` (open, writable) with the seeded guild."""
    clock = Clock()
    ledger = ChipLedger(storage, clock=clock)
    store = TableStore(storage, clock=clock)
    service = TableService(ledger, store, dealer=seeded_deals(seed_no), clock=clock)
    league = LeagueService(storage, ledger, clock=clock)
    wire_league(service, league)
    web = WebAccess(storage, clock=clock)
    await league.start_season(GUILD, "Autumn")
    await league.end_season(GUILD)  # an archived season (empty)
    await league.start_season(GUILD, "Winter league")
    table_ids: list[int] = []
    groups = [(101, 102, 103), (101, 103, 104), (102, 104), (101, 102, 104)]
    for n in range(tables):
        users = groups[n % len(groups)]
        table = 20_000 + n
        await service.open_table(table, guild_id=GUILD, channel_id=table, host_id=users[0], config=TableConfig.build())
        for user in users:
            await ledger.grant(GUILD, user, 2000, actor="system", reason="seed")
            await service.join(table, user, buy_in=1000)
        await store_names(storage, users)
        await play_hands(service, table, {u: make_player("easy") for u in users}, hands, seed=seed_no + n)
        clock.now += 3600
        table_ids.append(table)
    await league.drain()
    first = table_ids[0]
    await web.share(GUILD, first, 2, 102)  # the hostile-named player shares hand 2
    tourney = TournamentService(service, clock=clock)
    t = await tourney.create(
        90_001, guild_id=GUILD, channel_id=1, host_id=101, config=TournamentConfig(title="Friday <b>Night</b> Pan")
    )
    for user in (101, 102):
        await tourney.register(t.tournament_id, user)
    # a hand in progress at a third table: nothing of it may reach a page
    live_table = 29_999
    await service.open_table(live_table, guild_id=GUILD, channel_id=live_table, host_id=101, config=TableConfig.build())
    for user in (101, 103):
        await service.join(live_table, user, buy_in=500)
    await store_names(storage, (101, 103))
    oracle = LiveHand(table_id=live_table, hand_no=0, seed=0)
    service.subscribe(oracle)
    applied = await service.start_hand(live_table, 101)
    hand = applied.state.hand
    assert hand is not None and hand.seed is not None
    oracle.hand_no, oracle.seed = hand.hand_no, hand.seed
    await web.share(GUILD, live_table, hand.hand_no, 101)  # planted: a share of an unfinished hand is never served
    token = await web.turn_on(GUILD, 1)
    other = await web.turn_on(OTHER_GUILD, 1)
    return Seeded(
        token=token,
        other_token=other,
        tables=table_ids,
        shared=(first, 2),
        unshared=(first, 3),
        tournament=t.tournament_id,
        live=oracle,
    )
