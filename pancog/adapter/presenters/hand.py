"""One player's own view: the My hand panel (its snapshot, play labels, menus), the private answer after an
action with the next step, the hand DM, hints and the player's /pan settings. Everything here is PRIVATE to that
player (an ephemeral answer or a DM) unless its docstring says otherwise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pancog.adapter.presenters.common import Names, cards_text, chips, declaration_note, name_of, units
from pancog.adapter.safety import shown
from pancog.game import engine
from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Discard,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    Pluck,
    SetAway,
    Stand,
    TakeOption,
)
from pancog.game.cards import Card
from pancog.game.events import (
    CardPlucked,
    Declared,
    Discarded,
    DrawDeclined,
    Event,
    Forced,
    Melded,
    OptionTaken,
    WentOut,
)
from pancog.game.i18n import N_, current, tr
from pancog.game.melds import Meld
from pancog.game.state import Phase, Step, TableState
from renderer import HandSnapshot, hand_text

DONT_DRAW_AGAIN = N_("Don't draw again")
"""The double draw's second pluck declined (/pass, the My hand button): [S0] "the right to draw twice"."""
DM_CLOSED_NOTICE = N_(
    "I couldn't DM you your hand (your DMs are closed to this server), so I won't try again. "
    "Use the **My hand** button on the table or `/hand` to see your cards."
)


def hand_snapshot(
    state: TableState,
    seat: int,
    *,
    sort: str = "suit",
    four_color: bool = False,
    plays: Sequence[tuple[Action, int]] = (),
) -> HandSnapshot:
    """PRIVATE: one player's hand with the waiting drawn/option card (if it is his turn)."""
    hand = state.hand
    cards: tuple[Card, ...] = ()
    drawn: Card | None = None
    label = "pluck"
    pl = hand.players[seat] if hand is not None else None
    if hand is not None and pl is not None:
        cards = pl.hand
        t = hand.turn
        if t is not None and t.seat == seat and t.step in (Step.DRAWN, Step.MUST_USE):
            drawn = t.drawn
            label = "pluck" if t.step is Step.DRAWN else "option"
    usable = {c for a, _ in plays if isinstance(a, NewMeld | AddToMeld | Borrow) for c in a.cards} if drawn else set()
    return HandSnapshot(
        cards=cards,
        meldable=frozenset(i for i, c in enumerate(cards) if c in usable),
        drawn=drawn,
        drawn_label="option" if label == "option" else "pluck",
        sort="rank" if sort == "rank" else "suit",
        four_color=four_color,
        lang=current(),
    )


def action_label(action: Action, pays: int = 0, seat_names: Mapping[int, str] | None = None) -> str:
    """A short label for a legal play (select options, ≤ 100 characters). ``seat_names``: the players' names by
    seat, for the plays aimed at someone (a force, a foul call)."""

    def who(seat: int | None) -> str:
        if seat is None:
            return ""
        return (seat_names.get(seat) if seat_names is not None else None) or tr("seat {number}", number=seat + 1)

    suffix = " — " + tr("collects {chips}", chips=chips(pays)) if pays else ""
    match action:
        case NewMeld():
            text = (
                tr("Meld {cards} with the drawn card", cards=cards_text(action.cards)) if action.cards else tr("Meld")
            )
        case AddToMeld():
            text = (
                tr("Add {cards} to meld {meld}", cards=cards_text(action.cards), meld=action.meld)
                if action.cards
                else tr("Lay off on meld {meld}", meld=action.meld)
            )
            if action.split:
                text += ", " + tr("split off {cards}", cards=cards_text(action.split))
        case Borrow():
            taken = ", ".join(tr("{card} from meld {meld}", card=c.pretty, meld=m) for m, c in action.taken)
            text = tr("Meld {cards} borrowing {taken}", cards=cards_text(action.cards), taken=taken)
        case MakeGood():
            text = tr("Make meld {meld} good with {cards}", meld=action.meld, cards=cards_text(action.cards))
        case Discard():
            text = (
                tr("Discard the drawn card") if action.card is None else tr("Discard {card}", card=action.card.pretty)
            )
        case Pluck():
            text = tr("Draw from the stock")
        case DeclineDraw():
            text = tr(DONT_DRAW_AGAIN) + " " + tr("(end your turn; your first pluck is the next player's option card)")
        case TakeOption():
            text = tr("Take the option card")
        case Knock():
            text = tr("Knock (play this hand)")
        case GoOnTop():
            text = tr("Go on top (sluff)")
        case Force():
            card = action.card.pretty if action.card else ""
            if action.target is not None:
                text = tr("Force {card} on {name}", card=card, name=who(action.target)).replace("  ", " ")
            else:
                text = tr("Force {card}", card=card).strip()
        case Claim():
            text = tr("Claim your pays")
        case OfferSplit():
            text = tr("Offer to split the tops")
        case AcceptSplit():
            text = tr("Accept splitting the tops")
        case DeclineSplit():
            text = tr("Decline splitting the tops")
        case FoulCall():
            text = tr("Call {name}'s hand foul", name=who(action.target))
        case Stand():
            text = tr("Leave the table")
        case SetAway():
            text = tr("Sit out") if action.away else tr("Come back")
        case _:
            text = type(action).__name__
    return (text + suffix)[:100]


@dataclass(frozen=True, slots=True)
class PrivateNote:
    """What the acting player is told privately after an action."""

    text: str


def private_result(
    before: TableState,
    after: TableState,
    seat: int,
    events: Sequence[Event],
    *,
    to_act: int | None,
    names: Names | None = None,
    step: bool = True,
) -> str:
    """PRIVATE (ephemeral to the actor): the outcome of his own action, with his next step (``to_act``: whose
    turn it is in ``after``, from the engine; ``step=False``: the hand panel that follows says it)."""
    names = names if names is not None else {}  # not `or`: a mapping's truth is its length
    parts: list[str] = []
    for e in events:
        match e:
            case CardPlucked() if e.seat == seat:
                parts.append(tr("You plucked {card}.", card=e.card.pretty))
            case OptionTaken() if e.seat == seat:
                parts.append(tr("You took the option card {card}; meld it now.", card=e.card.pretty))
            case Melded() if e.seat == seat:
                parts.append(
                    tr("Melded — a condition worth {units}.", units=units(e.units)) if e.units else tr("Melded.")
                )
            case Discarded() if e.seat == seat:
                parts.append(tr("You discarded {card}.", card=e.card.pretty))
            case Declared() if e.seat == seat:
                parts.append(
                    declaration_note(after, names, seat, you=True)
                    or (tr("You knocked: you play this hand.") if e.playing else tr("You went on top for this hand."))
                )
            case WentOut() if e.seat == seat:
                parts.append(tr("You went out!"))
            case Forced() if e.caller == seat:
                target = after.seat(e.target) or before.seat(e.target)
                if target is not None:
                    parts.append(
                        tr("You forced {card} on {name}.", card=e.card.pretty, name=name_of(names, target.player_id))
                    )
                else:
                    parts.append(tr("You forced {card}.", card=e.card.pretty))
            case DrawDeclined() if e.seat == seat:
                parts.append(tr("You did not draw again; your turn is over."))
            case _:
                pass
    following = next_step(after, seat, to_act=to_act, names=names) if step else ""
    if following not in parts:  # the declaration's window is both what happened and what he can do next
        parts.append(following)
    return " ".join(p for p in parts if p)


def next_step(state: TableState, seat: int, *, to_act: int | None, names: Names | None = None) -> str:
    """PRIVATE hint: what this player can do now (``to_act``: whose turn it is, from the engine), including a
    declaration he may still change."""
    hand = state.hand
    if hand is None:
        return tr("The hand is over.") if state.last_hand is not None else ""
    window = declaration_note(state, names if names is not None else {}, seat, you=True)
    if to_act != seat:
        return window
    if hand.phase is Phase.DECLARING:
        return tr("Your turn to declare: /knock to play, /sluff to go on top.")
    t = hand.turn
    if t is None:
        return window
    if hand.make_good is not None:
        return tr("Make meld {meld} good (see My hand).", meld=hand.make_good[1])
    match t.step:
        case Step.DRAW if t.second_pluck:
            return tr("Your first pluck is in the discards: /draw again, or /pass (don't draw again).")
        case Step.DRAW:
            take = engine.can(state, TakeOption(seat=seat))  # the option card must meld at once (§2.7)
            return tr("Your turn: /draw or /take the option card.") if take else tr("Your turn: /draw.")
        case Step.DRAWN:
            return tr("Meld the plucked card (/meld, /add, /borrow or My hand) or /discard it.")
        case Step.MUST_USE:
            return tr("You must meld that card now (/meld, /add or My hand).")
        case Step.MELDING:
            return tr("Meld more, or /discard a card to end your turn.")
    return window


def panel_text(*, notice: str, hand_no: int, snapshot: HandSnapshot, step: str, result: str = "") -> str:
    """PRIVATE: the My hand panel's words: the result of the player's own action (if any), his hand, the card he
    drew (named once: not again when the result has just named it), and his next step (once)."""
    drawn = snapshot.drawn
    named = drawn is not None and drawn.pretty in result
    text = notice + tr("Hand {n}.", n=hand_no) + f" {hand_text(snapshot, name_drawn=not named)}"
    if result:
        text = f"{result}\n{text}"
    if step and step not in result:
        text += f"\n{step}"
    return text[:2000]


def hand_dm_text(guild: str, channel: str, hand_no: int, text_twin: str) -> str:
    """PRIVATE (DM): the deal."""
    where = f"**{shown(guild, limit=100)}** · #{shown(channel, limit=100)} · "
    return where + tr("hand {n}", n=hand_no) + f"\n{text_twin}"


def settings_text(*, ping: str, dm_mode: str, dm_closed: bool, sort: str, four_color: bool) -> str:
    """PRIVATE: /pan settings — the player's preferences after the change."""
    closed = " " + tr("(your DMs are closed: use My hand)") if dm_closed else ""
    pings = tr("a mention in the channel at your turn") if ping == "turn" else tr("off")
    return tr(
        "Turn pings: {pings}. DMs: {dms}. Sort: {sort}. Four-colour: {four_colour}.",
        pings=pings,
        dms=_setting_word(dm_mode) + closed,
        sort=_setting_word(sort),
        four_colour=tr("on") if four_color else tr("off"),
    )


def _setting_word(value: str) -> str:
    words = {"every": tr("every"), "turn": tr("turn"), "deal": tr("deal"), "off": tr("off")}
    words |= {"suit": tr("suit"), "rank": tr("rank")}
    return words.get(value, value)


def layout_setting(*, layout: str) -> str:
    """PRIVATE: /pan settings — how the player's own images are laid out (follows `settings_text`)."""
    if layout == "phone":
        return tr("Layout: phone (My hand shows the table over your hand in one tall image; hand DMs in rows).")
    return tr("Layout: wide.")


def language_setting(*, language: str, own: bool) -> str:
    """PRIVATE: /pan settings — the language Pan writes to the player in (``own``: he chose it)."""
    if own:
        return tr("Language: {language}.", language=language)
    return tr("Language: {language} (from Discord or the server).", language=language)


def meld_choice(meld: Meld) -> str:
    """An autocomplete choice for one of the player's melds (≤ 100 characters)."""
    return f"{meld.id}: {cards_text(meld.cards)}"[:100]


HINT_REFUSED = N_(
    "Hints are only for practice tables (/pan practice) where everyone else is a computer player; "
    "at this table it would be coaching."
)
HINT_NO_HAND = N_("No hand in progress.")
HINT_NOT_YOUR_MOVE = N_("Nothing to suggest: it is not your move.")


def hint_text(sentence: str) -> str:
    """PRIVATE: /hint — the suggestion's one sentence names the play ("Knock: about 30% of the unseen cards ...")."""
    return f"💡 {sentence}"[:2000]


SELECT_PLACEHOLDERS = {"play": N_("Play: meld, draw, declare…"), "discard": N_("Discard a card")}
CHOOSE_A_PLAY = N_("Choose a play.")
MENU_OUT_OF_DATE = N_("That menu is out of date — open My hand again.")


def nothing_to(what: str) -> str:
    """PRIVATE refusal: no legal play of that kind (``what``: "force", "call foul", else any)."""
    if what == "force":
        return tr("There is nothing you can force now.")
    if what == "call foul":
        return tr("There is nothing you can call foul now.")
    return tr("There is nothing you can do that now.")


def hand_now(text_twin: str) -> str:
    return tr("Your hand now:") + " " + text_twin


def not_in_hand(*, dealt: bool) -> str:
    if dealt:
        return tr("You are not in a hand right now. Wait for the next deal.")
    return tr("You are not in a hand right now. Press Start on the board to deal.")
