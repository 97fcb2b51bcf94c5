"""What a player has (``ChipLedger.holdings``): bank plus chips at the guild's open tables — what ``/pan
leaderboard`` ranks — and the asker's own place."""

from __future__ import annotations

from pancog.infra.storage import Account, Posting
from pancog.services.ledger import ChipLedger, Holding
from pancog.services.store import TableStore
from tests.support.storage import GUILD

TABLE = 700
SEASON_TABLE = 701
OTHER_GUILD_TABLE = 702


async def play_out(ledger: ChipLedger, table: int, loser: int, winner: int, chips: int, key: str) -> None:
    """A hand's chips: ``chips`` from the loser's stack to the winner's."""
    postings = [Posting(Account.stack(table, loser), -chips), Posting(Account.stack(table, winner), chips)]
    await ledger.transact(postings, key=key, reason="hand", table_id=table)


async def test_a_player_whose_chips_are_on_a_table_outranks_one_who_left_at_a_loss(
    ledger: ChipLedger, store: TableStore
) -> None:
    """Bank balances alone put a player who left at −20 (bank 980) above one at +19 whose chips are still on the
    table (bank 900 + 119 at the table): what each *has* puts them the other way round, stated as such."""
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=1, config='{"preset": "california"}')
    for user in (1, 2, 3):
        await ledger.buy_in(TABLE, user, 100, key=f"sit:{user}")
    await play_out(ledger, TABLE, 1, 2, 20, "h1")  # 1 loses 20 to 2 ...
    await play_out(ledger, TABLE, 3, 2, 1, "h2")  # ... and 3 loses 1: 2 is up 21 ...
    await play_out(ledger, TABLE, 2, 3, 2, "h3")  # ... then 19
    await ledger.cash_out(TABLE, 1)  # 1 leaves: 980 in his bank
    assert await ledger.leaderboard(GUILD, 3) == [(1, 980), (2, 900), (3, 900)]  # banks only: 1 on top
    board = await ledger.holdings(GUILD, limit=3, caller=2)
    assert board.lines == (
        Holding(rank=1, user_id=2, bank=900, at_tables=119),
        Holding(rank=2, user_id=3, bank=900, at_tables=101),
        Holding(rank=3, user_id=1, bank=980, at_tables=0),
    )
    assert board.caller == board.lines[0] and not board.caller_outside
    assert [h.total for h in board.lines] == [1019, 1001, 980]


async def test_the_askers_place_outside_the_top_ties_and_what_is_left_out(
    ledger: ChipLedger, store: TableStore
) -> None:
    """The asker outside the shown lines gets his own place; equal totals share a rank; computer players, another
    guild's tables and a bank season's tables are not counted in the guild's board (the season board counts the
    season banks and its own tables)."""
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=1, config="{}")
    season_scope = -(2**62) - 1
    config = f'{{"preset": "california", "bank_scope": {season_scope}}}'
    await store.open_table(SEASON_TABLE, guild_id=GUILD, channel_id=SEASON_TABLE, host_id=1, config=config)
    await store.open_table(OTHER_GUILD_TABLE, guild_id=GUILD + 1, channel_id=OTHER_GUILD_TABLE, host_id=1, config="{}")
    for user in range(1, 13):
        await ledger.ensure_player(GUILD, user)
        await ledger.grant(GUILD, user, user * 10, actor="system", reason="test", key=f"g:{user}")
    await ledger.grant(GUILD, -1001, 10_000, actor="system", reason="a computer player", key="g:bot")
    await ledger.buy_in(TABLE, 3, 500, key="sit:3")  # bank 530 -> 30 + 500 at the table: still 1,030
    await ledger.grant(season_scope, 1, 5_000, actor="system", reason="season bank", key="s:1")
    await ledger.transact(
        [Posting(Account.bank(season_scope, 1), -4_000), Posting(Account.stack(SEASON_TABLE, 1), 4_000)],
        key="season-sit",
        reason="buy-in",
        table_id=SEASON_TABLE,
    )
    await ledger.ensure_player(GUILD + 1, 12)
    await ledger.buy_in(OTHER_GUILD_TABLE, 12, 999, key="other")  # the other guild's chips are not this guild's
    await ledger.grant(GUILD, 11, 10, actor="system", reason="tie", key="tie")  # 11: 1,120 = 12's 1,120
    board = await ledger.holdings(GUILD, limit=3, caller=2)
    assert [(h.rank, h.user_id, h.total) for h in board.lines] == [(1, 11, 1120), (1, 12, 1120), (3, 10, 1100)]
    assert board.caller == Holding(rank=11, user_id=2, bank=1020, at_tables=0) and board.caller_outside
    mine = await ledger.holding(GUILD, 3)
    assert mine == Holding(rank=10, user_id=3, bank=530, at_tables=500)
    assert await ledger.holding(GUILD, 99) is None  # no chips yet: no place
    season = await ledger.holdings(GUILD, scope_id=season_scope, caller=1)
    assert season.lines == (Holding(rank=1, user_id=1, bank=1_000, at_tables=4_000),)
    excluded = await ledger.holdings(GUILD, limit=2, caller=11, exclude=[11])
    assert [h.user_id for h in excluded.lines] == [12, 10] and excluded.caller is None
