"""``/pan leaderboard`` ranks what players have — their bank plus their chips still on a table — says so on every
line, and shows the asker's own place."""

from __future__ import annotations

from tests.e2e.conftest import PanFactory
from tests.e2e.test_table_commands import play_two


async def test_the_leaderboard_ranks_bank_plus_chips_at_tables(pan_factory: PanFactory) -> None:
    """Four hands: player1 is up 20 with his chips still on the table, player2 left it down 20. By bank balances
    alone player2 (980) ranked above player1 (900 in the bank); by what each has, player1 (1,020) is above; the
    asker off the first page (20 lines) gets his own line and the next page's option, the second page lists him
    marked, and an asker on the page is marked."""
    pan = await pan_factory(members=21)
    a, b = pan.users[:2]
    await pan.seat(2)  # each buys in 100 from a bank of 1,000
    for _ in range(4):
        await play_two(pan)  # player1 goes out: +5, player2 -5
    await pan.slash(b, "pan leave")
    guild = pan.h.guild.id
    for i, member in enumerate(pan.users[2:]):  # nineteen others with more: player1 is 20th, player2 21st
        await pan.rt.ledger.ensure_player(guild, member.id)
        await pan.rt.ledger.grant(guild, member.id, 100 + i, actor="system", reason="test")
    assert await pan.rt.ledger.balance(guild, a.id) == 900 and await pan.rt.ledger.balance(guild, b.id) == 980

    reply = await pan.slash(b, "pan leaderboard")
    assert not reply.ephemeral
    lines = reply.text.splitlines()
    assert lines[20].startswith("20. player1 — ") and "player2" not in "\n".join(lines[:21])  # the order first
    assert lines[0] == "**Leaderboard — chips (bank + at tables), all time — page 1 of 2**"
    assert lines[1].endswith("— 1,118 chips (all in the bank)")
    assert lines[20] == "20. player1 — 1,020 chips (bank 900 + 120 at tables)"
    assert lines[21] == "More: page:2"
    assert lines[22] == "You: #21 — 980 chips (all in the bank)"  # the asker, off the first page
    assert len(lines) == 23 and "player2" not in reply.text

    reply = await pan.slash(b, "pan leaderboard", page=2)
    assert reply.text.splitlines() == [
        "**Leaderboard — chips (bank + at tables), all time — page 2 of 2**",
        "21. player2 — 980 chips (all in the bank) ← you",
    ]
    reply = await pan.slash(b, "pan leaderboard", page=3)
    assert reply.text.splitlines()[1] == "Nothing on this page."

    reply = await pan.slash(a, "pan leaderboard")
    lines = reply.text.splitlines()
    assert lines[20] == "20. player1 — 1,020 chips (bank 900 + 120 at tables) ← you" and len(lines) == 22

    reply = await pan.slash(a, "pan balance")  # the same figures, from the same place
    assert "Bank: 900 chips. Plus 120 chips on tables." in reply.text
