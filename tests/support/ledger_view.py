"""Test support: what the ledger itself says a hand did to each player, read straight from the database.

The figures the bot shows are checked against this, not against anything the bot computes: the postings of the
journals of a table's actions (``actions.journal_id``), summed per player over his stack and bank accounts (a
buy-in or a cash-out inside the hand moves chips between the two and adds nothing).
"""

from __future__ import annotations

from pancog.infra.storage.base import Account, AccountKind, Storage


async def ledger_hand_nets(storage: Storage, table_id: int, first_seq: int, last_seq: int) -> dict[int, int]:
    """{user id: chips} the committed postings of actions ``first_seq..last_seq`` of a table gave each player
    (players with no posting are absent)."""
    async with storage.transaction(write=False) as tx:
        rows = await tx.fetchall(
            "SELECT p.account_key, p.delta FROM actions a JOIN postings p ON p.journal_id = a.journal_id "
            "WHERE a.table_id = ? AND a.seq >= ? AND a.seq <= ?",
            (table_id, first_seq, last_seq),
        )
    nets: dict[int, int] = {}
    for key, delta in rows:
        account = Account.parse(str(key))
        if account.kind in (AccountKind.STACK, AccountKind.BANK) and account.user_id is not None:
            nets[account.user_id] = nets.get(account.user_id, 0) + int(delta)
    return nets


async def hand_seqs(storage: Storage, table_id: int) -> dict[int, tuple[int, int]]:
    """{hand number: (seq of its deal, seq of the action that ended it)} of a table's finished hands, read from the
    events the log stores with each action (``HandStarted`` / ``HandEnded`` lines)."""
    async with storage.transaction(write=False) as tx:
        log = await tx.read_log(table_id, 0)
    started: dict[int, int] = {}
    out: dict[int, tuple[int, int]] = {}
    for seq, _action, events in log:
        for line in events.splitlines():
            kind, fields = _event(line)
            if kind == "HandStarted":
                started[int(fields["hand_no"])] = seq
            elif kind == "HandEnded":
                hand_no = int(fields["hand_no"])
                out[hand_no] = (started[hand_no], seq)
    return out


def _event(line: str) -> tuple[str, dict[str, str]]:
    """(event name, its fields) of a stored event line (``pancog.game.notation.format_event``)."""
    parts = line.split()
    if len(parts) < 2:
        return "", {}
    return parts[1], dict(p.split("=", 1) for p in parts[2:] if "=" in p)


async def stored_events(storage: Storage, table_id: int) -> list[tuple[int, str, dict[str, str]]]:
    """(seq, event name, its fields) of every event a table's log stores, in order."""
    async with storage.transaction(write=False) as tx:
        log = await tx.read_log(table_id, 0)
    return [(seq, *_event(line)) for seq, _action, events in log for line in events.splitlines() if line.strip()]
