"""``/pan leaderboard`` ranks what players have — their bank plus their chips still on a table — says so on every
line, and shows the asker's own place."""

from __future__ import annotations

from tests.e2e.conftest import PanFactory
from tests.e2e.test_table_commands import play_two


async def test_the_leaderboard_ranks_bank_plus_chips_at_tables(pan_factory: PanFactory) -> None:
    """Four hands: player1 is up 20 with his chips still on the table, player2 left it down 20. By bank balances
    alone player2 (980) ranked above player1 (900 in the bank); by what each has, player1 (1,020) is above; the
    asker outside the top ten gets his own line, and an asker inside it is marked."""
    pan = await pan_factory(members=11)
    a, b = pan.users[:2]
    await pan.seat(2)  # each buys in 100 from a bank of 1,000
    for _ in range(4):
        await play_two(pan)  # player1 goes out: +5, player2 -5
    await pan.slash(b, "pan leave")
    guild = pan.h.guild.id
    for i, member in enumerate(pan.users[2:]):  # nine others with more: player1 is 10th, player2 11th
        await pan.rt.ledger.ensure_player(guild, member.id)
        await pan.rt.ledger.grant(guild, member.id, 100 + i, actor="system", reason="test")
    assert await pan.rt.ledger.balance(guild, a.id) == 900 and await pan.rt.ledger.balance(guild, b.id) == 980

    reply = await pan.slash(b, "pan leaderboard")
    assert not reply.ephemeral
    lines = reply.text.splitlines()
    assert lines[10].startswith("10. player1 — ") and "player2" not in "\n".join(lines[:11])  # the order first
    assert lines[0] == "**Leaderboard — chips (bank + at tables), all time**"
    assert lines[1].endswith("— 1,108 chips (all in the bank)")
    assert lines[10] == "10. player1 — 1,020 chips (bank 900 + 120 at tables)"
    assert lines[11] == "You: #11 — 980 chips (all in the bank)"  # the asker, outside the top ten
    assert len(lines) == 12 and "player2" not in reply.text

    reply = await pan.slash(a, "pan leaderboard")
    lines = reply.text.splitlines()
    assert lines[10] == "10. player1 — 1,020 chips (bank 900 + 120 at tables) ← you" and len(lines) == 11

    reply = await pan.slash(a, "pan balance")  # the same figures, from the same place
    assert "Bank: 900 chips. Plus 120 chips on tables." in reply.text
