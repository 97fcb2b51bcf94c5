"""Daily-claim edges the mutation run (seed 4) found untested: the smallest daily grant is one chip."""

from __future__ import annotations

from storage_kit import GUILD

from pancog.services.ledger import ChipLedger


async def test_a_daily_amount_of_one_chip_is_granted(ledger: ChipLedger) -> None:
    await ledger.update_settings(GUILD, starting_chips=0, daily_amount=1)
    claim = await ledger.claim_daily(GUILD, 7)
    assert (claim.claimed, claim.amount, claim.balance) == (True, 1, 1)
    assert await ledger.balance(GUILD, 7) == 1
