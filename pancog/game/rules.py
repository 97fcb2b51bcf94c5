"""Table rules: one frozen configuration holding every table option of RULES.md §8/§9.

A table's rules are a preset (``california`` by default, ``classic``, ``online``) plus any single
overrides. Variant differences live here, never in ``if`` statements in the cog.

>>> Rules.preset("online").force_mode
<ForceMode.MANDATORY: 'mandatory'>
>>> Rules.preset("california", going_out_units=0).going_out_units
0
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from pancog.game.i18n import N_, counted, tr, trn

from .cards import Card, build_shoe, format_cards
from .errors import RuleViolation


@functools.lru_cache(maxsize=64)
def _shoe(deck_count: int, remove: int, removals: tuple[Card, ...], extras: tuple[Card, ...]) -> tuple[Card, ...]:
    return build_shoe(deck_count, remove, removals, extras)


class StartMode(StrEnum):
    """How the first player starts a hand (G4)."""

    DOUBLE_DRAW = "double_draw"  # California: the first player may pluck twice on his first turn
    UPCARD = "upcard"  # Hoyle: the top stock card is turned up as a takeable first option card


class ForceMode(StrEnum):
    """Forcing (G10)."""

    ON_DEMAND = "on_demand"  # any active player may /force
    MANDATORY = "mandatory"  # the engine forces the option card automatically; force-back stays manual
    OFF = "off"  # no forcing


class SetCharacter(StrEnum):
    """Whether a set's condition kind is fixed when it is made (G17)."""

    STATIC = "static"
    DYNAMIC = "dynamic"


class BustOut(StrEnum):
    """Which collections of the going-out turn are taken twice (G21)."""

    OFF = "off"
    NEW_ONLY = "new_only"
    NEW_OR_ENHANCED = "new_or_enhanced"


class ClaimMode(StrEnum):
    """How condition pays are collected (G22, G34)."""

    AUTO = "auto"  # the engine collects at once
    DEFERRED = "deferred"  # the player claims; an unclaimed pay waits for his next hit
    FORFEIT = "forfeit"  # the player claims; an unclaimed pay lapses at his discard (beans)


class NobodyIn(StrEnum):
    """What happens to the tops when nobody plays a hand (G7)."""

    CARRY_OVER = "carry_over"
    REFUND = "refund"


class FoulRefunds(StrEnum):
    """Who receives a fouled player's refunds (G23)."""

    PAYERS = "payers"  # everyone who paid him this hand
    ACTIVE_ONLY = "active_only"  # only payers still in action ([S0] literally)


class UnwonDoublesTops(StrEnum):
    """The doubles tops when a singles player wins (G24)."""

    CARRY_OVER = "carry_over"
    REFUND = "refund"  # back to this hand's doubles players, equally (odd chips stay)


class OddChip(StrEnum):
    """The odd chip when two players split the tops (G25)."""

    CARRY = "carry"  # stays in the pot for the next hand
    NEXT_PLAYER = "next_player"  # to the splitter whose turn is next


class StockExhausted(StrEnum):
    """What happens when the stock runs out (G26)."""

    RESHUFFLE_MUCK = "reshuffle_muck"  # reshuffle the muck once, then the hand is void
    VOID_HAND = "void_hand"


class OneLeft(StrEnum):
    """One player left in action because of fouls, busts or quits (G28)."""

    PLAY_OUT = "play_out"  # he plays on alone and must use every usable card
    SETTLE_NOW = "settle_now"  # he wins the tops now and is paid the outs as his board lies


class Enforcement(StrEnum):
    """Who enforces meld validity (§0, §6.5)."""

    ENGINE = "engine"  # invalid spreads are refused
    PLAYERS = "players"  # invalid spreads may be laid; a foul call demands "make it good"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """Every table option, with the project's default (the REC of RULES.md)."""

    # --- deck (G1, §1.1)
    deck_count: int = 8
    remove_spade_sets: int = 0
    extra_removals: tuple[Card, ...] = ()
    extra_cards: tuple[Card, ...] = ()
    # --- table and stakes (§8)
    max_players: int = 8
    min_buyin_chips: int = 20
    ante_chips: int = 1
    allow_doubles: bool = True
    chip_value: str = "1"  # display only
    rake: int = 0  # chips per dealt-in player to the house (G33)
    beans: bool = False  # no ante; pays must be claimed or lapse (G32)
    # --- hand flow
    start_mode: StartMode = StartMode.DOUBLE_DRAW  # G4
    retire_forfeit_chips: int = 0  # extra chips (beyond the ante) paid into the tops to go on top (G6)
    nobody_in: NobodyIn = NobodyIn.CARRY_OVER  # G7
    option_card: bool = True  # G9
    option_card_layoff: bool = True  # G9: the option card may be laid off (not only used in a new meld)
    force_mode: ForceMode = ForceMode.ON_DEMAND  # G10
    # --- conditions (§4)
    unsuited_valle_pays: bool = True  # C1 exists (G13)
    unsuited_valle_increment: int = 0  # G13
    suited_ak_pays: bool = True  # G14
    spades_double: bool = True  # G15
    full_rope_counts_two: bool = True  # G16
    set_character: SetCharacter = SetCharacter.STATIC  # G17
    borrow_split_rope: bool = False  # G19
    going_out_units: int = 0  # G20: california pays the tops and the outs only [S0] (RULES.md §0)
    bust_out: BustOut = BustOut.NEW_OR_ENHANCED  # G21
    claim_mode: ClaimMode = ClaimMode.AUTO  # G22 / G34
    # --- fouls, splits, odd cases
    foul_refunds: FoulRefunds = FoulRefunds.PAYERS  # G23
    unwon_doubles_tops: UnwonDoublesTops = UnwonDoublesTops.CARRY_OVER  # G24
    split_tops: bool = True  # §7.6
    split_odd_chip: OddChip = OddChip.CARRY  # G25
    auto_split_married: bool = True  # G25: married splitters split automatically when last in action
    stock_exhausted: StockExhausted = StockExhausted.RESHUFFLE_MUCK  # G26
    one_left: OneLeft = OneLeft.PLAY_OUT  # G28
    turn_timeout_seconds: int = 60  # G29 (the service runs the timer)
    abandon_timeouts: int = 2  # timeouts in one hand after which a foul call for abandoning is accepted
    enforcement: Enforcement = Enforcement.ENGINE

    def __post_init__(self) -> None:
        if not 2 <= self.max_players <= 15:
            raise RuleViolation(N_("A table seats 2 to 15 players."))
        if self.deck_count < 1:
            raise RuleViolation(N_("The shoe needs at least one pack."))
        if self.ante_chips < 0 or self.rake < 0 or self.min_buyin_chips < 1:
            raise RuleViolation(N_("Antes, rake and buy-ins cannot be negative."))
        if self.going_out_units < 0 or self.retire_forfeit_chips < 0 or self.unsuited_valle_increment < 0:
            raise RuleViolation(N_("Payments cannot be negative."))
        if self.abandon_timeouts < 1 or self.turn_timeout_seconds < 1:
            raise RuleViolation(N_("Timeouts must be positive."))
        try:
            _shoe(self.deck_count, self.remove_spade_sets, self.extra_removals, self.extra_cards)
        except ValueError as exc:
            raise RuleViolation(N_("The deck options remove more cards than the packs hold.")) from exc

    @property
    def ante(self) -> int:
        """Chips each player antes into the singles tops (0 in a beans game)."""
        return 0 if self.beans else self.ante_chips

    @property
    def effective_claim_mode(self) -> ClaimMode:
        """Beans games forfeit unclaimed pays (G32)."""
        return ClaimMode.FORFEIT if self.beans and self.claim_mode is ClaimMode.AUTO else self.claim_mode

    def shoe(self) -> tuple[Card, ...]:
        """The unshuffled shoe these rules deal from."""
        return _shoe(self.deck_count, self.remove_spade_sets, self.extra_removals, self.extra_cards)

    @classmethod
    def preset(cls, name: str = "california", **overrides: object) -> Rules:
        """A preset, as it stands now, with optional single-option overrides.

        Raises:
            RuleViolation: unknown preset or option name, or an invalid value.
        """
        return cls.preset_of_edition(name, PRESET_EDITION, overrides)

    @classmethod
    def preset_of_edition(cls, name: str, edition: int, overrides: Mapping[str, object]) -> Rules:
        """A preset as it stood in ``edition`` of :data:`PRESETS`, with single-option overrides: a table keeps
        the rules it was opened with.

        Raises:
            RuleViolation: unknown preset, edition or option name, or an invalid value.
        """
        base = PRESETS.get(name)
        if base is None:
            raise RuleViolation(
                N_("Unknown rules preset '{name}'. Presets: {presets}."), name=name, presets=", ".join(PRESETS)
            )
        if not 1 <= edition <= PRESET_EDITION:
            raise RuleViolation(N_("Unknown rules edition {edition}."), edition=edition)
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise RuleViolation(N_("Unknown table option {option}."), option=unknown[0])
        earlier: dict[str, object] = {}
        for older in range(PRESET_EDITION - 1, edition - 1, -1):  # the newest change first, older ones over it
            earlier.update(EARLIER_EDITIONS.get(older, {}).get(name, {}))
        return dataclasses.replace(base, **{**earlier, **overrides})  # type: ignore[arg-type]  # checked by __post_init__


PRESETS: dict[str, Rules] = {
    "california": Rules(),
    "classic": Rules(start_mode=StartMode.UPCARD, allow_doubles=False, going_out_units=2),
    "online": Rules(remove_spade_sets=1, force_mode=ForceMode.MANDATORY, going_out_units=2),
}

PRESET_EDITION: Final = 2
"""The edition of :data:`PRESETS`. A table records the edition it was opened under and keeps those rules:
a preset that changes gets a new edition, and :data:`EARLIER_EDITIONS` says what each older one held."""

EARLIER_EDITIONS: Final[dict[int, dict[str, dict[str, object]]]] = {
    # edition 1: california paid 2 going-out units, against [S0] and RULES.md §4.6 (tables opened under it keep it)
    1: {"california": {"going_out_units": 2}},
}
"""Edition -> preset -> the options where that edition's preset differed from the next edition's."""


def preset_name(rules: Rules) -> str | None:
    """The preset these rules equal exactly, if any."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    return None


def rule_overrides(rules: Rules, base: str = "california") -> dict[str, object]:
    """The options where ``rules`` differs from preset ``base``."""
    ref = PRESETS[base]
    return {
        f.name: getattr(rules, f.name)
        for f in dataclasses.fields(Rules)
        if getattr(rules, f.name) != getattr(ref, f.name)
    }


_DESCRIBE = {
    StartMode.DOUBLE_DRAW: N_("Start: the first player may pluck twice on his first turn (no upcard)."),
    StartMode.UPCARD: N_("Start: an upcard starts the discards; the first player may take it if it melds at once."),
    ForceMode.ON_DEMAND: N_("Forcing: forcing on demand: any active player may force a card that fits a board."),
    ForceMode.MANDATORY: N_("Forcing: forcing is mandatory: an option card that fits your board must be taken."),
    ForceMode.OFF: N_("Forcing: no forcing."),
}
RULE_CONDITIONS = N_("Conditions:")
"""How the conditions line of :func:`describe_rules` starts (``/pan rules`` picks it for its top five)."""
RULE_GOING_OUT = N_("Going out")
"""How the going-out line of :func:`describe_rules` starts."""


def _deck(rules: Rules) -> str:
    parts = [tr("Deck: {n} packs of 40 cards (no 8s, 9s, 10s)", n=rules.deck_count)]
    if rules.remove_spade_sets:
        parts.append(tr(", minus {sets} of spades", sets=trn("{n} set", "{n} sets", rules.remove_spade_sets)))
    if rules.extra_removals:
        parts.append(tr(", minus {cards}", cards=format_cards(rules.extra_removals)))
    if rules.extra_cards:
        parts.append(tr(", plus {cards}", cards=format_cards(rules.extra_cards)))
    parts.append(tr(": {n} cards.", n=len(rules.shoe())))
    return "".join(parts)


def describe_rules(rules: Rules) -> list[str]:
    """Each table option in plain words, for ``/pan rules`` (in the task's language)."""
    chips = counted(rules.min_buyin_chips, "chip")
    if rules.allow_doubles:
        seats = tr(
            "Seats: up to {n} players; buy-in at least {chips} ({doubles} to play doubles).",
            n=rules.max_players,
            chips=chips,
            doubles=2 * rules.min_buyin_chips,
        )
    else:
        seats = tr("Seats: up to {n} players; buy-in at least {chips}; no doubles.", n=rules.max_players, chips=chips)
    if rules.retire_forfeit_chips:
        on_top = tr(
            "Going on top costs the ante plus {chips} into the tops.", chips=counted(rules.retire_forfeit_chips, "chip")
        )
    else:
        on_top = tr("Going on top costs the ante only.")
    if rules.option_card:
        option = (
            tr(
                "Option card: the previous player's unused pluck may be taken if it melds at once "
                "(new meld or lay-off)."
            )
            if rules.option_card_layoff
            else tr("Option card: the previous player's unused pluck may be taken if it melds at once (new meld only).")
        )
    else:
        option = tr("No option card: every draw is a pluck from the stock.")
    if rules.unsuited_valle_pays:
        valle = (
            tr("Three valle of different suits pay 1, +{n} per extra card.", n=rules.unsuited_valle_increment)
            if rules.unsuited_valle_increment
            else tr("Three valle of different suits pay 1.")
        )
    else:
        valle = tr("Three valle of different suits pay nothing.")
    if rules.split_tops:
        split = (
            tr("The last two players may split the tops; the odd chip stays in the pot.")
            if rules.split_odd_chip is OddChip.CARRY
            else tr("The last two players may split the tops; the odd chip goes to the next player.")
        )
        if rules.auto_split_married:
            split += " " + tr("Married splitters split automatically.")
    else:
        split = tr("Splitting the tops is not allowed.")
    return [
        _deck(rules),
        seats,
        tr("Beans game: no ante; pays must be claimed before your discard.")
        if rules.beans
        else tr(
            "Ante (tops): {chips} a hand; doubles players ante again into the doubles tops.",
            chips=counted(rules.ante_chips, "chip"),
        ),
        tr("Rake: {chips} per player per hand.", chips=counted(rules.rake, "chip")) if rules.rake else tr("No rake."),
        tr(_DESCRIBE[rules.start_mode]),
        on_top,
        tr("If nobody plays, the tops carry over to the next hand.")
        if rules.nobody_in is NobodyIn.CARRY_OVER
        else tr("If nobody plays, the tops are refunded."),
        option,
        tr(_DESCRIBE[rules.force_mode]),
        tr(
            "Conditions: three valle (3, 5, 7) of the same suit pay 2, other suited sets 1, runs from the Ace or to "
            "the King 1; spades pay double."
        )
        if rules.spades_double
        else tr(
            "Conditions: three valle (3, 5, 7) of the same suit pay 2, other suited sets 1, runs from the Ace or to "
            "the King 1; spades pay the same as other suits."
        ),
        valle,
        tr("Suited sets of Aces or Kings pay like other suited sets.")
        if rules.suited_ak_pays
        else tr("Sets of Aces or Kings never pay."),
        tr("A full rope from Ace to King counts as two conditions.")
        if rules.full_rope_counts_two
        else tr("A full rope from Ace to King counts as one condition."),
        tr("A set's condition is fixed when it is made.")
        if rules.set_character is SetCharacter.STATIC
        else tr("A set's condition is re-read after every card added."),
        tr("Borrowing a middle card of a rope (leaving two ropes) is allowed.")
        if rules.borrow_split_rope
        else tr("Only an end card may be borrowed from a rope."),
        tr(
            "Going out pays the tops and the outs plus {units} from every player in the hand.",
            units=counted(rules.going_out_units, "unit"),
        )
        if rules.going_out_units
        else tr("Going out pays the tops and the outs (every condition on the board again), no going-out units."),
        {
            BustOut.OFF: tr("No bust-out bonus."),
            BustOut.NEW_ONLY: tr("Bust-out: conditions made on the going-out turn are paid twice."),
            BustOut.NEW_OR_ENHANCED: tr("Bust-out: conditions made or enhanced on the going-out turn are paid twice."),
        }[rules.bust_out],
        {
            ClaimMode.AUTO: tr("Pays are collected automatically."),
            ClaimMode.DEFERRED: tr("Pays must be claimed; an unclaimed pay waits for your next hit."),
            ClaimMode.FORFEIT: tr("Pays must be claimed before your discard or they lapse."),
        }[rules.effective_claim_mode],
        tr("A fouled player refunds everyone who paid him.")
        if rules.foul_refunds is FoulRefunds.PAYERS
        else tr("A fouled player refunds the players still in action."),
        tr("Doubles tops won by a singles player carry over.")
        if rules.unwon_doubles_tops is UnwonDoublesTops.CARRY_OVER
        else tr("Doubles tops won by a singles player are refunded."),
        split,
        tr("When the stock runs out the muck is reshuffled once; after that the hand is void.")
        if rules.stock_exhausted is StockExhausted.RESHUFFLE_MUCK
        else tr("When the stock runs out the hand is void."),
        tr("One player left in action plays the hand out and must use every usable card.")
        if rules.one_left is OneLeft.PLAY_OUT
        else tr("One player left in action wins the tops and the outs as his board lies."),
        tr(
            "Turn timer: {seconds} s; after {timeouts} in a hand a player may be called foul for abandoning it.",
            seconds=rules.turn_timeout_seconds,
            timeouts=trn("{n} timeout", "{n} timeouts", rules.abandon_timeouts),
        ),
        tr("The bot refuses invalid spreads.")
        if rules.enforcement is Enforcement.ENGINE
        else tr("Players enforce the rules: an invalid spread may be called and must be made good."),
    ]
