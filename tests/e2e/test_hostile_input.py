"""Issue 18: every interaction gets an answer, within Discord's limits, and menu values are checked at the door.

Every synced slash command (and /pan subcommand) is sent with adversarial option values, every board button
and My hand select with forged values, through the fake Discord with its payload limits on. For each: an answer
within 3 s, no 4xx from the fake on any of the bot's requests, the table, its chips and every bank unchanged
(except the few commands whose job is to change them, listed below), and the bot still serving the next one.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from pancog.adapter.hand import offered
from pancog.adapter.presenters.hand import MENU_OUT_OF_DATE
from pancog.adapter.safety import unescaped
from pancog.game import engine
from tests.e2e.conftest import Pan, private_to
from tests.e2e.test_refusals import started
from tests.fakediscord.harness import Reply
from tests.fakediscord.models import FakeMessage, FakeUser


def every_category(length: int = 2000) -> str:
    """One character of every Unicode general category but surrogates (which UTF-8 cannot carry), repeated."""
    seen: dict[str, str] = {}
    for code in range(0x30000):
        category = unicodedata.category(chr(code))
        if category != "Cs" and category not in seen:
            seen[category] = chr(code)
    sample = "".join(seen.values())
    assert len(seen) >= 29, sorted(seen)
    return (sample * (length // len(sample) + 1))[:length]


HOSTILE: dict[str, str] = {
    "2000 Qs": "Q" * 2000,
    "6000 chars": ("KH QS ♠😀 " * 700)[:6000],  # Discord's longest string option
    "2000 cards": ("2C " * 700)[:2000],
    "2000 spades": "♠" * 2000,
    "2000 zero-width": "\u200b" * 2000,
    "2000 emoji": "😀" * 2000,
    "every category": every_category(),
    "26 cards": " ".join(["KH"] * 26),
    "mentions and markdown": "<@&1> **x** ||y|| @everyone @here <#1> `z` > q " * 40,
    "rtl override": "\u202e" + "QS KS JS " * 200,
}

CHANGES_BY_DESIGN = {
    "pan daily": "claims the daily chips into the bank",
    "pan leave": "stands the player up after the hand (their seat's chips go back to the bank)",
    "pan settings": "saves the player's preferences",
    "panadmin grant": "moves chips (every member of the fake guild is an administrator)",
    "panadmin config": "changes the server's settings (every member of the fake guild is an administrator)",
    "panadmin channels": "changes where Pan may be used (every member of the fake guild is an administrator)",
    "panadmin season start": "starts a league season (every member of the fake guild is an administrator)",
    "panadmin season end": "ends the league season (every member of the fake guild is an administrator)",
    "tourney create": "announces a tournament",
    "tourney register": "pays a tournament's buy-in from the bank into its escrow",
    "split": "offers to split the pot",
    "pan addbot": "seats a computer player (every member of the fake guild is an administrator)",
}
"""Commands that, sent by a seated player not to act, change the table or the bank because that is their job."""


async def books(pan: Pan) -> tuple[object, ...]:
    """The table's engine state, its balances in the ledger, and every member's bank."""
    session = pan.session()
    async with pan.rt.storage.transaction(write=False) as tx:
        table = await tx.table_balances(session.table_id)
    banks = []
    for user in [pan.h.moderator, *pan.users]:
        banks.append(await pan.rt.ledger.balance(pan.h.guild.id, user.id))
    return session.state, table, tuple(banks)


def answered_well(pan: Pan, reply: Reply, user: FakeUser, calls_before: int) -> None:
    """An answer within 3 s, and no request of the bot refused by the fake (4xx) since ``calls_before``."""
    label = reply.interaction.label
    assert reply.latency is not None and reply.latency < 3.0, f"{label}: answered after {reply.latency}s"
    refused = [(c.route, c.status, c.violations) for c in pan.h.fake.calls[calls_before:] if 400 <= c.status < 500]
    assert not refused, f"{label}: the fake refused {refused}"
    assert pan.h.fake.violations == [], f"{label}: {pan.h.fake.violations}"
    assert reply.all_messages or reply.type in (6, 8), f"{label}: nothing visible came back"
    texts = [m.text for m in reply.all_messages]
    assert all(len(t) <= 2000 for t in texts), texts


def option_value(spec: dict[str, Any], text: str, pan: Pan) -> Any:
    """A hostile value for one option of a synced command (within what Discord itself lets through)."""
    if spec.get("choices"):
        if spec.get("name") == "language":  # the last choice is Tagalog: the checks below read English replies
            return spec["choices"][0]["value"]
        return spec["choices"][-1]["value"]
    kind = spec["type"]
    if kind == 3:
        return text[: spec.get("max_length", 6000)]
    if kind == 4:
        return spec.get("max_value", 2**53)
    if kind == 10:
        return spec.get("max_value", 1e300)
    if kind == 5:  # form:True answers with a modal, not a message (its values: test_open_form, test_tourney_form)
        return spec["name"] != "form"
    if kind == 6:
        return pan.users[3]
    if kind == 7:
        return pan.h.channel
    if kind == 8 and not spec.get("required"):
        return None  # a role: the harness cannot send one; left out
    raise AssertionError(f"option type {kind} not covered")


def commands(pan: Pan) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every synced command and subcommand as ('pan open', its option specs)."""
    found = []
    for top in pan.h.fake.guild_commands[pan.h.guild.id]:
        subs = [o for o in top.get("options") or [] if o["type"] == 1]
        if subs:
            found += [(f"{top['name']} {s['name']}", list(s.get("options") or [])) for s in subs]
        else:
            found.append((top["name"], list(top.get("options") or [])))
    return found


@pytest.mark.parametrize("hostile", list(HOSTILE))
async def test_every_command_with_hostile_values(pan: Pan, hostile: str) -> None:
    """Every slash command with hostile option values: answered privately in 3 s, nothing refused by Discord,
    nothing changed (but for the commands listed in CHANGES_BY_DESIGN), the bot serving the next command."""
    _a, b, _c = await started(pan)
    text = HOSTILE[hostile]
    swept = sorted(commands(pan), key=lambda c: c[0] == "pan leave")  # leave last: it unseats b
    assert len(swept) >= 30, [name for name, _ in swept]
    for name, specs in swept:
        if name in ("pan close", "pan open", "pan practice"):  # public by design, and they end or add tables
            continue
        options = {s["name"]: option_value(s, text, pan) for s in specs}
        options = {k: v for k, v in options.items() if v is not None}
        before = await books(pan)
        calls_before = len(pan.h.fake.calls)
        reply = await pan.slash(b, name, **options)
        answered_well(pan, reply, b, calls_before)
        if name in ("pan leaderboard",):  # a public answer by design
            continue
        assert private_to(reply, b), f"/{name}: {[m.text for m in reply.all_messages]}"
        if name not in CHANGES_BY_DESIGN:
            assert await books(pan) == before, f"/{name} {hostile} changed the table or a bank"
    reply = await pan.slash(pan.users[0], "hand")  # still serving
    assert private_to(reply, pan.users[0]) and "Hand 1" in reply.text


async def test_hostile_autocomplete_is_answered_within_limits(pan: Pan) -> None:
    """Autocomplete with hostile partial input: ≤ 25 choices of ≤ 100 characters, answered in 3 s."""
    a, _b, _c = await started(pan)
    for text in HOSTILE.values():
        for command, option, extra in (
            ("meld", "cards", {}),
            ("discard", "card", {}),
            ("add", "cards", {"meld": 1}),
            ("borrow", "card", {"meld": 1}),
        ):
            choices = await pan.h.autocomplete(a, command, option, text[:6000], **extra)  # fails if unanswered
            assert len(choices) <= 25 and all(1 <= len(c["name"]) <= 100 for c in choices), choices
    assert pan.h.fake.violations == []


def panel_select(panel: FakeMessage, kind: str) -> dict[str, Any]:
    return next(c for c in panel.iter_components() if str(c.get("custom_id", "")).endswith(f":{kind}"))


async def forge(pan: Pan, user: FakeUser, panel: FakeMessage, custom_id: str, values: list[str]) -> Reply:
    """Send a select choice whatever the menu offered (as a modified client could)."""
    data = {"custom_id": custom_id, "component_type": 3, "values": values}
    reply = await pan.h._component(user, panel, data, f"forged {custom_id}={str(values)[:40]}", None, True)
    await pan.settle()  # the answer (a private refusal), and anything the bot does after it
    return reply


async def test_forged_menu_values_are_refused_at_the_door(pan: Pan) -> None:
    """Forged values, values from another player's panel and from an older state: 'That menu is out of date',
    privately, within 3 s, nothing reaching the engine, nothing changed; then the real menu still works."""
    a, b, _c = await started(pan)
    panel = (await pan.click(a, pan.board(), "My hand")).message
    assert panel is not None
    play = panel_select(panel, "play")
    session = pan.session()
    mine = offered(engine.observe(session.state, session.seat_of(a.id)), a.id)
    theirs = offered(engine.observe(session.state, session.seat_of(b.id)), b.id)
    stale = f"{session.state.seq - 1}.{a.id}.{mine['play'][0][0].rsplit('.', 1)[1]}"
    other = next((t for entries in theirs.values() for t, _, _ in entries), f"{session.state.seq}.{b.id}.0")
    forged = [
        ["sit 5"],
        ["rebuy 1000"],
        ["0 knock"],
        ["0 d 2C"],
        ["x" * 2000],
        [HOSTILE["every category"]],
        [stale],
        [other],
        [mine["play"][0][0].replace(f".{a.id}.", f".{b.id}.")],
        [mine["discard"][0][0]] if mine["discard"] else ["-"],  # a discard token in the play menu
        [mine["play"][0][0], mine["play"][-1][0]],  # two values in a one-value menu
    ]
    applied: list[object] = []
    pan.rt.tables.subscribe(applied.append)
    for values in forged:
        before = await books(pan)
        calls_before = len(pan.h.fake.calls)
        reply = await forge(pan, a, panel, play["custom_id"], values)
        answered_well(pan, reply, a, calls_before)
        assert private_to(reply, a)
        assert MENU_OUT_OF_DATE in reply.text, (values, reply.text)
        assert await books(pan) == before
    assert applied == []  # nothing reached the table service's commit
    reply = await forge(pan, b, panel, play["custom_id"], [mine["play"][0][0]])  # a's own token, clicked by b
    assert MENU_OUT_OF_DATE in reply.text
    assert applied == []
    # the menu as offered still plays
    option = play["options"][0]
    await pan.select(a, panel, play["custom_id"], [option["value"]])
    await pan.h.until(lambda: bool(applied), "the offered play committed")
    await pan.settle()
    assert len(applied) == 1
    reply = await forge(pan, a, panel, play["custom_id"], [option["value"]])  # the same value, now from an older state
    assert MENU_OUT_OF_DATE in reply.text and len(applied) == 1


async def test_forged_buttons_are_answered(pan: Pan) -> None:
    """Board buttons clicked by the wrong people and custom_ids naming other or unknown tables: a private answer
    each, within 3 s, nothing changed."""
    _a, b, c = await started(pan)
    board = pan.board()
    table_id = pan.session().table_id
    for user in (b, c):
        for button in board.buttons:
            before = await books(pan)
            calls_before = len(pan.h.fake.calls)
            reply = await pan.click(user, board, button["custom_id"])
            answered_well(pan, reply, user, calls_before)
            assert private_to(reply, user)
            if button["label"] not in ("My hand", "Join", "Leave", "Split"):  # Split offers a split: its job
                assert await books(pan) == before, button["label"]
            if button["label"] == "Leave" and user is b:
                return
        for custom_id in (f"pan:t:{table_id + 999}:draw", f"pan:t:{table_id}:sit", "pan:t:0:knock"):
            before = await books(pan)
            calls_before = len(pan.h.fake.calls)
            data = {"custom_id": custom_id, "component_type": 2}
            reply = await pan.h._component(user, board, data, f"forged {custom_id}", None, True)
            await pan.settle()
            answered_well(pan, reply, user, calls_before)
            assert await books(pan) == before


async def test_replies_quoting_long_input_fit(pan: Pan) -> None:
    """The issue's two cases: 2,000 characters of cards to /meld, 2,000 Qs to /discard: a short private refusal
    quoting a clearly cut excerpt."""
    a, _b, _c = await started(pan)
    reply = await pan.slash(a, "meld", cards=("2C " * 700)[:2000])
    assert private_to(reply, a) and reply.text.startswith("You don't hold 2C 2C") and "…" in reply.text
    assert len(reply.text) < 200
    reply = await pan.slash(a, "discard", card="Q" * 2000)
    assert private_to(reply, a) and "'QQQQQQQQQQQ…' has no Pan rank" in reply.text, reply.text
    reply = await pan.slash(a, "discard", card="QS")
    assert private_to(reply, a) and "You don't hold QS" in reply.text
    reply = await pan.slash(a, "discard", card="<@&1>**x**")  # typed text quoted back is shown, never obeyed
    assert private_to(reply, a) and unescaped(reply.text).startswith("'<@&1>**x**' has no Pan rank"), reply.text
    assert "\\<\\@&1\\>\\*\\*x" in reply.text  # escaped: no role pill, no bold
