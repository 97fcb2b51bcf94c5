"""What every backend's transaction promises (pancog/infra/storage/base.py, the StorageTx contract): ``?``
placeholders next to string literals (PostgreSQL's rewrite), the changed-row count of a statement that changes no
rows, the action log's refusals when the schema itself says no (an action already logged under a ``last_seq`` that
fell behind; a journal that does not exist), ``insert_table``'s answer and the storage context closing.
docs/storage.md, "Feature tables" and "Contiguous log"."""

from __future__ import annotations

import pytest

from pancog.infra.storage import LogConflict
from pancog.infra.storage.base import TableRow
from pancog.infra.storage.postgres import dollar_placeholders
from pancog.services.store import TableStore
from tests.support.storage import GUILD, TABLE, AnyStorage, database_errors, raw_execute


def test_a_question_mark_after_an_empty_string_literal_is_a_placeholder() -> None:
    """``''`` is an empty string, not the start of an escaped quote: the ``?`` after it is the first parameter."""
    assert dollar_placeholders("SELECT value FROM t WHERE name <> '' AND name = ?") == (
        "SELECT value FROM t WHERE name <> '' AND name = $1"
    )
    assert dollar_placeholders("SELECT ?, '', ?") == "SELECT $1, '', $2"


def test_a_literal_ends_at_its_closing_quote_even_with_no_space_after_it() -> None:
    """A string literal followed at once by a ``--`` comment or a double-quoted alias: the comment's ``?`` stays
    as written, the alias is an identifier, and only the ``?`` after them are numbered."""
    assert dollar_placeholders("SELECT 'a'-- why?\n, ?") == "SELECT 'a'-- why?\n, $1"
    assert dollar_placeholders("SELECT 'a'\"label\", ?") == "SELECT 'a'\"label\", $1"
    assert dollar_placeholders("SELECT 'a'\"?\", ?") == "SELECT 'a'\"?\", $1"


async def test_generic_statements_with_literals_next_to_placeholders_run_on_both_backends(
    storage: AnyStorage,
) -> None:
    """The league's portable SQL on either backend (docs/storage.md: ``?`` is rewritten outside literals): an
    empty-string literal before a placeholder, and a literal touching a comment, bind the intended value."""
    async with storage.transaction() as tx:
        await tx.execute_batch(
            [("INSERT INTO league_cursors (name, value) VALUES (?, ?)", (name, n)) for name, n in (("", 1), ("b", 2))]
        )
        assert await tx.fetchall("SELECT value FROM league_cursors WHERE name <> '' AND name = ?", ("b",)) == [(2,)]
        either = "SELECT value FROM league_cursors WHERE name = ''-- the empty name?\nOR name = ? ORDER BY value"
        assert await tx.fetchall(either, ("b",)) == [(1,), (2,)]


async def test_a_statement_that_changes_no_rows_reports_zero_changed_rows(storage: AnyStorage) -> None:
    """``StorageTx.execute`` returns the number of rows the statement changed: a ``CREATE TABLE`` or a
    ``DROP TABLE`` changes none, so 0 on both backends (SQLite's driver says -1 for "not a row count")."""
    async with storage.transaction() as tx:
        assert await tx.execute("CREATE TEMPORARY TABLE scratch (n INTEGER)") == 0
        assert await tx.execute("INSERT INTO scratch (n) VALUES (?), (?)", (1, 2)) == 2
        assert await tx.execute_batch([("DROP TABLE scratch", ())]) == [0]


async def test_an_action_already_logged_is_refused_even_when_last_seq_fell_behind(
    store: TableStore, storage: AnyStorage
) -> None:
    """docs/storage.md: the log is contiguous and ``(table_id, seq)`` is its primary key. A table whose
    ``last_seq`` was set back behind its log (a damaged row) lets the trigger pass a second action 1, but the key
    still refuses it: ``LogConflict``, and the logged action stays the only one."""
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=11, config="{}")
    await store.commit_action(9, 1, "sit 11", "[]")
    async with storage.transaction() as tx:
        await raw_execute(tx, "UPDATE tables SET last_seq = 0 WHERE table_id = 9")
    with pytest.raises(LogConflict):
        await store.commit_action(9, 1, "a second action 1", "[]", key="second")
    assert await store.read_log(9) == [(1, "sit 11", "[]")]


async def test_an_action_whose_journal_does_not_exist_is_refused_and_not_logged(
    store: TableStore, storage: AnyStorage
) -> None:
    """Every logged action names the journal it was committed with (a foreign key). An append naming a journal
    that does not exist is refused by the database, and neither the action nor the statements riding on it
    (here a league row) are written."""
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=11, config="{}")
    with pytest.raises(database_errors()):
        async with storage.transaction() as tx:
            await tx.append_action(
                table_id=TABLE,
                seq=1,
                action="sit 11",
                events="[]",
                journal_id=987_654,
                created_at=0.0,
                then=[("INSERT INTO league_cursors (name, value) VALUES (?, ?)", ("riding", 1))],
            )
    assert await store.read_log(TABLE) == []
    async with storage.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT name FROM league_cursors WHERE name = 'riding'") == []
        table = await tx.get_table(TABLE)
    assert table is not None and table.last_seq == 0


def _table_row(config: str) -> TableRow:
    return TableRow(
        table_id=TABLE,
        guild_id=GUILD,
        channel_id=3,
        host_id=4,
        config=config,
        meta="{}",
        status="open",
        created_at=1.0,
        closed_at=None,
        board_message_id=None,
        last_seq=0,
    )


async def test_insert_table_says_whether_it_inserted(storage: AnyStorage) -> None:
    """``StorageTx.insert_table`` is True for a new table and False for an id already taken (the store then reads
    the existing row): the contract, on both backends, not just what ``TableStore.open_table`` makes of it."""
    row = _table_row("{}")
    async with storage.transaction() as tx:
        assert await tx.insert_table(row) is True
        assert await tx.insert_table(row) is False
        assert await tx.get_table(TABLE) == row


async def test_leaving_the_storage_context_closes_it(database: str) -> None:
    """``async with storage_for(…)`` closes the storage at the end (its connections go back): a transaction after
    it is refused with a clear error instead of reaching a closed pool or file."""
    from pancog.infra.storage import StorageError, storage_for

    async with storage_for(database) as storage, storage.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT 1") == [(1,)]
    with pytest.raises(StorageError, match="not open"):
        async with storage.transaction(write=False) as tx:
            await tx.fetchall("SELECT 1")


@pytest.mark.parametrize(
    ("config", "scope"),
    [("", GUILD), ("not json", GUILD), ("[1, 2]", GUILD), ('{"bank_scope": true}', GUILD), ('{"bank_scope": -9}', -9)],
)
def test_a_stored_tables_bank_scope_falls_back_to_its_guild(config: str, scope: int) -> None:
    """``TableRow.bank_scope``: a config that is empty, not JSON, not an object, or names no integer scope means the
    guild's banks; only an integer ``bank_scope`` (a league's bank season) names another."""
    row = _table_row(config)
    assert row.bank_scope == scope


async def test_after_commit_callbacks_run_once_the_commit_is_done_and_never_on_a_rollback(
    storage: AnyStorage, caplog: pytest.LogCaptureFixture
) -> None:
    """``tx.after_commit(cb)`` (the outbox wakes its deliverer with it): after COMMIT, in order, outside the
    transaction (a callback may start the next one); never when the transaction rolls back; a callback that raises is
    logged and the others still run, and the commit stands."""
    seen: list[str] = []

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        async with storage.transaction() as tx:
            tx.after_commit(lambda: seen.append("rolled back"))
            await tx.execute("INSERT INTO league_cursors (name, value) VALUES (?, ?)", ("gone", 1))
            raise Boom
    assert seen == []

    def broken() -> None:
        raise RuntimeError("a listener's bug")

    async with storage.transaction() as tx:
        await tx.execute("INSERT INTO league_cursors (name, value) VALUES (?, ?)", ("kept", 2))
        tx.after_commit(lambda: seen.append("first"))
        tx.after_commit(broken)
        tx.after_commit(lambda: seen.append("second"))
        assert seen == []  # not before the commit
    assert seen == ["first", "second"]
    assert "an after-commit callback failed" in caplog.text
    caplog.clear()
    async with storage.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT name FROM league_cursors WHERE name IN ('gone', 'kept')") == [("kept",)]
