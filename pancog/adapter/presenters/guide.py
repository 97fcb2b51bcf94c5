"""The rules guide: the /pan guide pages and the five rules that matter most at a table."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.adapter.presenters.common import chips
from pancog.game.i18n import N_, tr
from pancog.game.rules import RULE_CONDITIONS, RULE_GOING_OUT, Rules

GUIDE_INTRO = N_(
    "**The Pan guide.** New? `/pan practice` deals you a hand against computer players; **My hand** shows your "
    "cards and every play. With friends: `/pan open`, **Join**, **Start**. Pick a page below."
)
GUIDE: tuple[tuple[str, str, str], ...] = (
    (
        "start",
        N_("Start here"),
        N_(
            "**Pan** (Panguingue) is a ten-card rummy played for chips.\n\n"
            "**Try a hand now:** `/pan practice` seats you with computer players and practice chips (your bank is "
            "untouched). Press **My hand** on the board: it shows your cards privately and lists every legal play, "
            "best first, with what it pays. Click a play to make it. `/hint` explains the suggested play there.\n\n"
            "**With friends:** `/pan open` in a channel, friends press **Join**, anyone presses **Start**. "
            "When it is your turn the bot mentions you (`/pan settings ping:off` to stop it)."
        ),
    ),
    (
        "hand",
        N_("How a hand goes"),
        N_(
            "1. **The deal**: ten cards each (by DM, and always under **My hand**). The decks have no 8s, 9s or 10s, "
            "so 7 and J are next to each other.\n"
            "2. **Declare**: each player **knocks** (plays) or **sluffs** (sits the hand out, losing only the ante).\n"
            "3. **Your turn**: **Draw** the top card of the stock, or **Take** the option card if it melds at once; "
            "meld the drawn card (or it becomes your discard); lay more melds if you like; **discard** one card.\n"
            "4. **Going out**: meld all eleven cards. Everyone in the hand pays you your conditions again plus the "
            "going-out pay, and you take the tops."
        ),
    ),
    (
        "melds",
        N_("Melds and what pays"),
        N_(
            "A **meld** is a **set** (three or more of one rank: all one suit, or three different suits; any three "
            "**Aces** or any three **Kings** make a set whatever their suits) or a **rope** (three or more of one suit "
            "in sequence, e.g. 6♥ 7♥ J♥).\n\n"
            "Some melds are **conditions**: they pay you at once, from every player in the hand. Three **valle** "
            "cards (3s, 5s or 7s) of one suit pay 2 units, other one-suit sets 1, a rope from the Ace or to the King "
            "1; spades pay double. Adding cards to a paying meld can pay again."
        ),
    ),
    (
        "words",
        N_("Words"),
        N_(
            "**knock**: play this hand. **sluff** (go on top): sit it out for the ante.\n"
            "**ante**: what each hand costs, paid into the **tops** (the pot the winner takes).\n"
            "**unit**: the table's stake; every pay is a number of units (`/pan open stakes:`).\n"
            "**valle**: the 3s, 5s and 7s, the cards whose sets pay more.\n"
            "**rope**: a run of one suit. **condition**: a meld that pays at once.\n"
            "**pluck**: the card you draw from the stock; it never goes into your hand: meld it or discard it.\n"
            "**hit**: using the drawn card in a meld; after a hit you may lay more melds from your hand.\n"
            "**option card**: the previous player's unused pluck; you may take it if it melds at once.\n"
            "**flat**: all ten cards on the board and none in hand: the next card that fits puts you out.\n"
            "**doubles**: playing for double (twice the buy-in, a second ante); you pay and collect double against "
            "other doubles players.\n"
            "**make good**: where the players enforce the rules, a spread called invalid must be fixed with cards "
            "from your hand, or your hand is foul.\n"
            "**outs**: what your melds collect when you go out (`/outs`). **bust-out**: conditions made on the "
            "going-out turn are paid twice.\n"
            "**force**: put a card that fits someone's melds on them; they must use it. **foul**: a dead hand that "
            "still pays. **split**: the last two players share the tops."
        ),
    ),
    (
        "help",
        N_("Where to get help"),
        N_(
            "**My hand** (or `/hand`): your cards and every legal play, best first, privately.\n"
            "`/hint` (practice tables): the suggested play in one sentence.\n"
            "`/pan rules`: the five rules that matter at this table, and all of them behind a button.\n"
            "**Text view** on the board: the table in words, for screen readers.\n"
            "`/pan settings`: turn pings, DMs, how your hand is sorted, a four-colour deck."
        ),
    ),
)
GUIDE_PLACEHOLDER = N_("Choose a page of the guide")


def guide_page(key: str) -> tuple[str, str]:
    """PRIVATE: one page of the in-Discord guide (title, text); unknown keys give the first page."""
    for name, title, text in GUIDE:
        if name == key:
            return tr(title), tr(text)
    return tr(GUIDE[0][1]), tr(GUIDE[0][2])


def rules_top_five(preset: str, rules: Rules, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the five rules that matter most at this table (the rest behind All rules)."""

    def find(prefix: str) -> str:
        return next((line for line in lines if line.startswith(prefix)), "")

    unit = chips(rules.ante_chips)
    five = [
        tr("Each hand costs the ante, one unit ({unit}), into the tops; every pay is a number of units.", unit=unit),
        tr("Knock to play the hand, or sluff (go on top) and lose only the ante."),
        tr(
            "Your turn: draw (or take the option card if it melds at once), use the drawn card or discard it, "
            "meld, then discard one card."
        ),
        find(tr(RULE_CONDITIONS)) or tr("Some melds (conditions) pay at once."),
        find(tr(RULE_GOING_OUT)) or tr("Meld all eleven cards to go out."),
    ]
    head = tr("**{preset} rules: the five that matter most**", preset=preset)
    return head + "\n" + "\n".join(f"{i}. {r}" for i, r in enumerate(five, 1))
