"""A simulated bot session for the SIGKILL test: opens tables, seats players, commits actions with postings.

Usage: python -m tests.infra.storage.crash_driver DATABASE SEED   (a SQLite path or a postgresql:// URL)

Every action text fully determines its postings (see ``postings_for``), so a checker can recompute every
balance from the logs alone. Prints, flushed:
  ``resume T S``   an open table found at start-up, with its last committed seq
  ``retry T S B``  the last action re-committed with its key: B is whether it posted again (must be False)
  ``ready``
  ``ok T S``       action S of table T committed (printed only after COMMIT returned)
  ``closed T``     table T closed (stacks cashed out)
"""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

from pancog.infra.storage import Account, Posting, storage_for, transfer
from pancog.services.ledger import ChipLedger, InsufficientChips
from pancog.services.store import TableStore

GUILD = 1
PLAYERS = (101, 102, 103, 104, 105, 106, -1)  # -1 is a computer player
BUY_IN = 100


def postings_for(table_id: int, action: str) -> list[Posting]:
    words = action.split()
    match words:
        case ["sit", user, amount]:
            return list(transfer(Account.bank(GUILD, int(user)), Account.stack(table_id, int(user)), int(amount)))
        case ["move", payer, payee, amount]:
            return list(transfer(Account.stack(table_id, int(payer)), Account.stack(table_id, int(payee)), int(amount)))
        case ["tops", payer, pot, amount]:
            return list(transfer(Account.stack(table_id, int(payer)), Account.tops(table_id, _pot(pot)), int(amount)))
        case ["win", winner, pot, amount]:
            return list(transfer(Account.tops(table_id, _pot(pot)), Account.stack(table_id, int(winner)), int(amount)))
        case ["note", *_]:
            return []
    raise ValueError(action)


def _pot(text: str) -> str:
    if text not in ("singles", "doubles"):
        raise ValueError(text)
    return text


def replay(table_id: int, actions: list[str] | tuple[str, ...]) -> dict[Account, int]:
    """Balances of a table's stack and tops accounts after its actions (bank postings excluded)."""
    balances: dict[Account, int] = {}
    for action in actions:
        for posting in postings_for(table_id, action):
            if posting.account.kind.value in ("stack", "tops"):
                balances[posting.account] = balances.get(posting.account, 0) + posting.delta
    return balances


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def run_table(
    store: TableStore, ledger: ChipLedger, rng: random.Random, table_id: int, state: dict[str, Any]
) -> None:
    seq = int(state["seq"])
    balances: dict[Account, int] = state["balances"]
    seated = sorted({a.user_id for a in balances if a.kind.value == "stack" and a.user_id is not None})
    if len(seated) < 3 or rng.random() < 0.05:
        user = rng.choice([p for p in PLAYERS if p not in seated] or PLAYERS)
        await ledger.ensure_player(GUILD, user)
        action = f"sit {user} {BUY_IN}"
    elif rng.random() < 0.04:
        payer, payee = rng.sample(seated, 2)
        action = f"move {payer} {payee} {balances.get(Account.stack(table_id, payer), 0) + 1}"  # overdraw
    else:
        payer, payee = rng.sample(seated, 2)
        held = balances.get(Account.stack(table_id, payer), 0)
        pot = rng.choice(("singles", "doubles"))
        tops = balances.get(Account.tops(table_id, pot), 0)
        roll = rng.random()
        if held == 0:
            action = f"note {payer} is broke"
        elif roll < 0.6:
            action = f"move {payer} {payee} {rng.randint(1, held)}"
        elif roll < 0.85 or tops == 0:
            action = f"tops {payer} {pot} {rng.randint(1, min(held, 5))}"
        else:
            action = f"win {payee} {pot} {tops}"
    try:
        await store.commit_action(table_id, seq + 1, action, "[]", postings_for(table_id, action))
    except InsufficientChips:
        return  # rolled back: the seq is not used, the in-memory state is unchanged
    say(f"ok {table_id} {seq + 1}")
    state["seq"] = seq + 1
    merged = dict(balances)
    for account, delta in replay(table_id, [action]).items():
        merged[account] = merged.get(account, 0) + delta
    state["balances"] = merged


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    async with storage_for(path) as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        tables: dict[int, dict[str, Any]] = {}
        for stored in await store.load_open_tables():
            say(f"resume {stored.table_id} {stored.last_seq}")
            tables[stored.table_id] = {"seq": stored.last_seq, "balances": replay(stored.table_id, stored.actions)}
            if stored.actions:
                last = stored.actions[-1]
                receipt = await store.commit_action(
                    stored.table_id, stored.last_seq, last, "[]", postings_for(stored.table_id, last)
                )
                say(f"retry {stored.table_id} {stored.last_seq} {receipt.created}")
        say("ready")
        while True:
            while len(tables) < 3:
                table_id = rng.randrange(10**6, 10**9)
                await store.open_table(table_id, guild_id=GUILD, channel_id=table_id, host_id=PLAYERS[0], config="{}")
                tables[table_id] = {"seq": 0, "balances": {}}
            if rng.random() < 0.02:
                table_id = rng.choice(sorted(tables))
                await store.close_table(table_id)
                del tables[table_id]
                say(f"closed {table_id}")
                continue
            await asyncio.gather(*(run_table(store, ledger, rng, t, s) for t, s in tables.items()))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
