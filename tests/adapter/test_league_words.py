"""The league's wording that has limits of its own: ``/panadmin flags`` fits one Discord message however many flags
there are (the strongest listed, then how many more), and a season's roles report says who has the role, who left
and what is still owed."""

from __future__ import annotations

from pancog.adapter.presenters.league import league_flags, season_roles_report
from pancog.adapter.safety import shown
from pancog.services.league import Flag
from pancog.services.outbox import OutboxItem

LONG = "Wolfeschlegelsteinhausenbergerd"  # 31 characters: names near Discord's 32


def flag(n: int) -> Flag:
    figures = tuple((f"figure_number_{k}", 1234.5678 + k) for k in range(8))
    hands = tuple(f"hand:15779411{n:02d}00000000:{h}" for h in range(5))
    return Flag(kind="flow", first=n, second=100 + n, score=9.9 - n / 10, figures=figures, hands=hands)


def test_ten_long_flags_fit_one_message_and_the_rest_are_counted() -> None:
    flags = [flag(n) for n in range(1, 11)]
    names = {**{n: f"{LONG}{n % 10}" for n in range(1, 11)}, **{100 + n: f"*{LONG}" for n in range(1, 11)}}
    text = league_flags(flags, names)
    assert len(text) <= 2000
    lines = text.splitlines()
    listed = [line for line in lines if line.startswith("• ")]
    assert 1 <= len(listed) < 10 and listed[0].startswith(f"• one-sided chip flow from {LONG}1")  # strongest first
    assert lines[-1] == f"… and {10 - len(listed)} more flags (weaker ones: the list is strongest first)."
    assert shown(f"*{LONG}") in text  # names escaped as everywhere
    assert league_flags(flags[:1], names).count("\n") == 1  # one flag: no "more" line


def item(user: int, status: str, result: str | None = None, error: str | None = None) -> OutboxItem:
    return OutboxItem(
        key=f"season:1:2:role:{user}",
        guild_id=1,
        kind="role.grant",
        payload={"user_id": user, "role_id": 9},
        status=status,  # type: ignore[arg-type]
        created_at=0.0,
        due_at=0.0,
        claimed_at=None,
        attempts=1,
        last_error=error,
        done_at=None,
        result=result,
    )


def test_the_roles_report_says_what_was_done() -> None:
    names = {1: "alice", 2: "bob", 3: "carol", 4: "dora", 5: "**eve**"}
    items = [
        item(1, "done", "granted"),
        item(2, "done", "had it"),
        item(3, "done", "left"),
        item(4, "failed", error="the bot lacks Manage Roles"),
        item(5, "owed", error="503 Service Unavailable"),
    ]
    assert season_roles_report("Champion", items, names) == (
        "Roles: alice and bob have Champion; carol left the server; 1 still owed (dora): the bot lacks Manage Roles; "
        "1 still being given (\\*\\*eve\\*\\*), retried by itself; Discord answered 503 Service Unavailable. "
        "Fix that, then /panadmin season roles tries again."
    )
    assert season_roles_report(None, items[:1], names) == "Roles: alice has the season's role."
    assert "nobody to give" in season_roles_report("Champion", [], names)
