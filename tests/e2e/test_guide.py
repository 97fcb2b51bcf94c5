"""Issue #14.6: /pan help is an in-Discord guide (pages in a select, edited in place), and /pan rules leads with
the five rules that matter most, the rest behind a button."""

from __future__ import annotations

from pancog.adapter.presenters.guide import GUIDE
from tests.e2e.conftest import Pan, private_to

TERMS = (
    "knock",
    "sluff",
    "valle",
    "rope",
    "condition",
    "tops",
    "unit",
    "option card",
    "outs",
    "force",
    "foul",
    "pluck",
    "flat",
    "doubles",
    "make good",
    "hit",
)
DEFINED = ("**pluck**", "**flat**", "**doubles**", "**make good**", "**hit**")


async def test_the_guide_pages(pan: Pan) -> None:
    user = pan.users[0]
    reply = await pan.slash(user, "pan help")
    assert private_to(reply, user) and reply.type == 4 and not pan.h.messages()
    assert "/pan practice" in reply.content and "My hand" in reply.content
    assert reply.embeds[0]["title"] == "Start here" and "docs/" not in reply.text  # no path a user cannot open
    menu = next(c for c in reply.message.iter_components() if c.get("custom_id") == "pan:guide")  # type: ignore[union-attr]
    assert [o["label"] for o in menu["options"]] == [title for _, title, _ in GUIDE]
    seen = reply.text
    for key, title, _ in GUIDE[1:]:
        page = await pan.select(user, reply.message, "pan:guide", [key])  # type: ignore[arg-type]
        assert page.type == 7  # the page replaces the last one in place: one call, no new message
        message = pan.h.fake.messages[reply.message.id]  # type: ignore[union-attr]
        assert message.embeds[0]["title"] == title
        seen += message.text
    for term in TERMS:
        assert term in seen.lower(), term
    for term in DEFINED:  # defined on the Words page, not only used
        assert term in seen, term
    melds = next(text for key, _, text in GUIDE if key == "melds")
    assert "any three **Aces** or any three **Kings**" in melds  # non-comoquer sets (RULES.md §1.3, §3.2)
    assert "/hint" in seen


async def test_rules_lead_with_five(pan: Pan) -> None:
    a = pan.users[0]
    await pan.slash(a, "pan open", stakes=5)
    reply = await pan.slash(a, "pan rules")
    assert private_to(reply, a)
    numbered = [line for line in reply.text.splitlines() if line[:2] in {f"{i}." for i in range(1, 10)}]
    assert len(numbered) == 5 and "one unit (5 chips)" in numbered[0]
    assert reply.message is not None and [b["label"] for b in reply.message.buttons] == ["All rules"]
    full = await pan.click(a, reply.message, "All rules")
    assert private_to(full, a) and full.text.count("•") > 10
