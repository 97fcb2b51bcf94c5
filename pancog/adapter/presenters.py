"""Engine state and events -> words and renderer snapshots. The only place Discord wording lives.

Nothing here imports discord: functions take engine values and a ``names`` mapping (player id -> display
name) and return plain strings (Discord markdown allowed) or renderer snapshots. Public texts never
include a card that is still in someone's hand; private texts (DMs, ephemeral replies) say so in their
function names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
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
from pancog.game.cards import Card, format_cards
from pancog.game.events import (
    AwaySet,
    CardPlucked,
    CashedOut,
    ChipReason,
    ChipsMoved,
    Declared,
    Discarded,
    Event,
    Forced,
    FoulCalled,
    HandEnded,
    HandFouled,
    HandStarted,
    MakeGoodDemanded,
    Melded,
    OptionTaken,
    PlayerBusted,
    PlayerQuit,
    PlayStarted,
    PluckVoided,
    SeatLeft,
    SeatTaken,
    SplitDeclined,
    SplitOffered,
    StockReshuffled,
    TimedOut,
    UpcardTurned,
    WentOut,
)
from pancog.game.melds import Meld, meld_value
from pancog.game.rules import Rules
from pancog.game.state import EndReason, HandState, Phase, PlayerStatus, Pot, Step, TableState
from renderer import (
    HandSnapshot,
    MeldSnapshot,
    OutcomeSnapshot,
    PaymentSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
)

SOMETHING_WRONG = "Something went wrong — the table is unchanged."
DM_CLOSED_NOTICE = (
    "I couldn't DM you your hand (your DMs are closed to this server), so I won't try again. "
    "Use the **My hand** button on the table or `/hand` to see your cards."
)

Names = Mapping[int, str]


def name_of(names: Names, player_id: int | None) -> str:
    if player_id is None:
        return "the floor"
    if player_id < 0:  # computer players (issue 8): "🤖 Normal bot 1", derived from the id (no Discord member)
        from pancog.bots import computer_name

        return names.get(player_id) or computer_name(player_id)
    return names.get(player_id) or f"Player {player_id % 10000}"


def seat_name(state: TableState, names: Names, seat: int | None) -> str:
    if seat is None:
        return "nobody"
    s = state.seat(seat)
    if s is None:
        return f"seat {seat + 1}"
    return name_of(names, s.player_id)


def cards_text(cards: Sequence[Card]) -> str:
    return format_cards(cards, pretty=True)


def chips(n: int) -> str:
    return f"{n:,} chip{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------------------------- snapshots


def _seat_status(state: TableState, hand: HandState | None, seat: int) -> SeatStatus:
    s = state.seats[seat]
    if hand is None or hand.players[seat] is None:
        return SeatStatus.AWAY if s is not None and s.away else SeatStatus.WAITING
    pl = hand.players[seat]
    if pl is None:
        return SeatStatus.WAITING
    match pl.status:
        case PlayerStatus.IN:
            return SeatStatus.FLAT if pl.board_count >= 10 and not pl.hand else SeatStatus.IN
        case PlayerStatus.RETIRED:
            return SeatStatus.ON_TOP
        case PlayerStatus.FOULED | PlayerStatus.QUIT:
            return SeatStatus.FOULED
        case PlayerStatus.BUSTED:
            return SeatStatus.BUSTED
        case _:
            return SeatStatus.WAITING


def meld_snapshots(melds: Sequence[Meld], rules: Rules) -> tuple[MeldSnapshot, ...]:
    return tuple(
        MeldSnapshot(
            index=m.id, cards=m.cards, value=meld_value(m, rules) if m.valid else 0, label="" if m.valid else "?"
        )
        for m in melds
    )


def table_snapshot(
    state: TableState, names: Names, *, title: str, notes: Sequence[str] = (), four_color: bool = False
) -> TableSnapshot:
    """The public table (never a hand's cards: only counts)."""
    hand = state.hand
    shown = hand if hand is not None else state.last_hand
    seats: list[SeatSnapshot] = []
    index_of: dict[int, int] = {}
    to_act = _to_act(state)
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        pl = shown.players[i] if shown is not None and i < len(shown.players) else None
        index_of[i] = len(seats)
        seats.append(
            SeatSnapshot(
                name=name_of(names, s.player_id).replace("🤖", "⚙"),  # computer players (issue 8): the font has ⚙
                chips=s.stack,
                status=_seat_status(state, hand, i),
                doubles=s.doubles,
                is_turn=to_act == i,
                melds=meld_snapshots(pl.melds, state.rules) if pl is not None else (),
                hand_count=len(pl.hand) if pl is not None and hand is not None else 0,
            )
        )
    top: Card | None = None
    is_option = False
    stock = 0
    if hand is not None:
        stock = len(hand.stock)
        if hand.option is not None:
            top, is_option = hand.option, True
        elif hand.muck:
            top = hand.muck[-1]
    return TableSnapshot(
        title=title[:80] or "Pan table",
        hand_no=state.hand_no,
        seats=tuple(seats),
        to_act=index_of.get(to_act) if to_act is not None else None,
        top_card=top,
        top_is_option=is_option,
        stock_count=stock,
        singles_tops=state.singles_tops,
        doubles_tops=state.doubles_tops,
        notes=tuple(notes[-3:]),
        four_color=four_color,
    )


def _to_act(state: TableState) -> int | None:
    from pancog.game import engine

    return engine.to_act(state)


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
    )


# --------------------------------------------------------------------------------------------- events


def _cause_text(cause: object) -> str:
    return {"invalid_meld": "an invalid spread", "abandoned": "abandoning the hand"}.get(str(cause), str(cause))


def end_text(state: TableState, names: Names, e: HandEnded) -> str:
    who = seat_name(state, names, e.winner)
    match e.reason:
        case EndReason.OUT:
            return f"Hand {e.hand_no} is over: **{who}** went out."
        case EndReason.LONE:
            return f"Hand {e.hand_no} is over: everyone else went on top, **{who}** takes the tops."
        case EndReason.NOBODY:
            return f"Hand {e.hand_no} is over: nobody played; the tops carry over."
        case EndReason.SPLIT:
            pair = " and ".join(seat_name(state, names, s) for s in e.splitters)
            return f"Hand {e.hand_no} is over: {pair} split the tops."
        case EndReason.SETTLED:
            return f"Hand {e.hand_no} is over: **{who}** is the last player in action and is paid as the board lies."
        case EndReason.VOID:
            return f"Hand {e.hand_no} is void: the stock ran out. Pays made stand; the tops carry over."
    return f"Hand {e.hand_no} is over."


def _account_name(state: TableState, names: Names, account: int | Pot) -> str:
    return f"the {account.value} tops" if isinstance(account, Pot) else seat_name(state, names, account)


def _chip_lines(state: TableState, names: Names, moves: Sequence[ChipsMoved]) -> list[str]:
    """Group chip movements: per payee and reason (antes summarised)."""
    lines: list[str] = []
    groups: dict[tuple[str, ChipReason], list[ChipsMoved]] = {}
    for m in moves:
        payee = m.payee.value if isinstance(m.payee, Pot) else str(m.payee)
        groups.setdefault((payee, m.reason), []).append(m)
    for (payee, reason), items in groups.items():
        total = sum(m.amount for m in items)
        if reason is ChipReason.ANTE:
            lines.append(f"Antes: {chips(total)} into the {payee} tops.")
            continue
        if reason is ChipReason.RAKE:
            continue
        payee_name = f"the {payee} tops" if not payee.isdigit() else seat_name(state, names, int(payee))
        payers = ", ".join(f"{_account_name(state, names, m.payer)} {m.amount}" for m in items)
        what = {
            ChipReason.CONDITION: "for conditions",
            ChipReason.OUTS: "for the outs",
            ChipReason.GOING_OUT: "for going out",
            ChipReason.BUST_OUT: "bust-out bonus",
            ChipReason.TOPS: "the tops",
            ChipReason.SPLIT: "a share of the split tops",
            ChipReason.REFUND: "refunds from a foul hand",
            ChipReason.TOPS_REFUND: "tops refunded",
            ChipReason.FORFEIT: "forfeit",
            ChipReason.FORFEIT_BACK: "forfeit returned",
        }.get(reason, reason.value)
        lines.append(f"{payee_name} receives {chips(total)} — {what} ({payers}).")
    return lines


def describe_events(before: TableState, after: TableState, names: Names, events: Sequence[Event]) -> list[str]:
    """PUBLIC lines for the board: what happened, in plain words. Private events are skipped."""
    lines: list[str] = []
    moves: list[ChipsMoved] = []

    def who(seat: int) -> str:
        s = before.seat(seat) or after.seat(seat)
        return name_of(names, s.player_id) if s is not None else f"seat {seat + 1}"

    for e in events:
        if e.private_to is not None:
            continue
        match e:
            case SeatTaken():
                s = after.seat(e.seat)
                lines.append(
                    f"{name_of(names, e.player_id)} sat down"
                    + (f" with {chips(s.stack)}" if s is not None else "")
                    + (", playing doubles" if e.doubles else "")
                    + "."
                )
            case SeatLeft():
                lines.append(f"{name_of(names, e.player_id)} left the table.")
            case CashedOut():
                lines.append(f"{name_of(names, e.player_id)} took {chips(e.amount)} back to the bank.")
            case AwaySet():
                lines.append(f"{who(e.seat)} is {'away' if e.away else 'back'}.")
            case HandStarted():
                lines.append(f"Hand {e.hand_no} dealt to {len(e.dealt)} players; {who(e.first)} is first hand.")
            case UpcardTurned():
                lines.append(f"The upcard is {e.card.pretty}.")
            case Declared():
                verb = "knocked — plays" if e.playing else "went on top"
                lines.append(f"{who(e.seat)} {verb}{' (changed)' if e.changed else ''}.")
            case PlayStarted():
                lines.append(f"Play starts: {who(e.seat)} draws first.")
            case CardPlucked():
                lines.append(f"{who(e.seat)} plucked {e.card.pretty}.")
            case OptionTaken():
                lines.append(f"{who(e.seat)} took the option card {e.card.pretty}.")
            case Melded():
                laid = cards_text([*([e.drawn] if e.drawn else []), *e.cards])
                pays = f", a condition worth {e.units} unit{'s' if e.units != 1 else ''}" if e.units else ""
                kind = {"new": "melded", "add": "added", "split": "added and split", "borrow": "borrowed to meld"}
                lines.append(f"{who(e.seat)} {kind.get(e.kind.value, 'melded')} {laid}{pays}.")
            case Discarded():
                lines.append(f"{who(e.seat)} discarded {e.card.pretty}.")
            case Forced():
                where = "back on" if e.back else "on"
                lines.append(f"{who(e.caller)} forced {e.card.pretty} {where} {who(e.target)}.")
            case PluckVoided():
                lines.append(f"{who(e.seat)}'s pluck {e.card.pretty} is dead.")
            case FoulCalled():
                caller = "The floor" if e.caller is None else who(e.caller)
                cause = f" for {_cause_text(e.cause)}" if e.cause is not None else ""
                lines.append(f"{caller} called {who(e.target)}'s hand foul{cause}.")
            case MakeGoodDemanded():
                lines.append(f"{who(e.seat)} must make meld {e.meld} good.")
            case HandFouled():
                lines.append(f"{who(e.seat)}'s hand is foul: dead for this hand, and still pays.")
            case PlayerQuit():
                lines.append(f"{who(e.seat)} left the hand (still pays to the end of it).")
            case PlayerBusted():
                lines.append(f"{who(e.seat)} is out of chips — busted.")
            case SplitOffered():
                lines.append(f"{who(e.seat)} offers to split the tops.")
            case SplitDeclined():
                lines.append(f"{who(e.seat)} declined to split the tops.")
            case StockReshuffled():
                lines.append(f"The stock ran out: {e.count} cards from the discards were reshuffled.")
            case TimedOut():
                lines.append(f"{who(e.seat)}'s time ran out; the minimal move was played.")
            case WentOut():
                lines.append(f"**{who(e.seat)} went out!**")
            case HandEnded():
                lines.extend(_chip_lines(after, names, moves))
                moves = []
                lines.append(end_text(before if before.hand is not None else after, names, e))
            case ChipsMoved():
                moves.append(e)
            case _:
                pass
    lines.extend(_chip_lines(after, names, moves))
    return lines


# --------------------------------------------------------------------------------------------- outcome


def outcome_snapshot(
    before: TableState,
    after: TableState,
    names: Names,
    events: Sequence[Event],
    *,
    title: str,
    four_color: bool = False,
) -> OutcomeSnapshot | None:
    """The end-of-hand summary image, when a hand just ended with a winner."""
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if ended is None or ended.winner is None or after.last_hand is None:
        return None
    winner = ended.winner
    pl = after.last_hand.players[winner]
    went = next((e for e in events if isinstance(e, WentOut)), None)
    per_payer: dict[int, int] = {}
    singles = doubles = 0
    for e in events:
        if not isinstance(e, ChipsMoved) or e.payee != winner:
            continue
        if e.payer is Pot.SINGLES:
            singles += e.amount
        elif e.payer is Pot.DOUBLES:
            doubles += e.amount
        elif isinstance(e.payer, int) and e.reason in (ChipReason.OUTS, ChipReason.GOING_OUT, ChipReason.BUST_OUT):
            per_payer[e.payer] = per_payer.get(e.payer, 0) + e.amount

    def who(seat: int) -> str:
        s = before.seat(seat) or after.seat(seat)
        # computer players (issue 8): the image font has no 🤖; ⚙ marks them in images
        return name_of(names, s.player_id).replace("🤖", "⚙") if s is not None else f"seat {seat + 1}"

    return OutcomeSnapshot(
        title=title[:80] or "Pan table",
        hand_no=ended.hand_no,
        winner=who(winner),
        melds=meld_snapshots(pl.melds, after.rules) if pl is not None else (),
        conditions=went.outs_units if went else 0,
        bust_out=went.bust_out_units if went else 0,
        going_out=after.rules.going_out_units if went else 0,
        singles_tops=singles,
        doubles_tops=doubles,
        payments=tuple(PaymentSnapshot(payer=who(s), chips=n) for s, n in per_payer.items()),
        four_color=four_color,
    )


# --------------------------------------------------------------------------------------------- actions


def action_label(action: Action, pays: int = 0) -> str:
    """A short label for a legal play (select options, ≤ 100 characters)."""
    suffix = f" — collects {chips(pays)}" if pays else ""
    match action:
        case NewMeld():
            text = f"Meld {cards_text(action.cards)}" if action.cards else "Meld"
            text += " with the drawn card" if action.cards else ""
        case AddToMeld():
            text = (
                f"Add {cards_text(action.cards)} to meld {action.meld}"
                if action.cards
                else f"Lay off on meld {action.meld}"
            )
            if action.split:
                text += f", split off {cards_text(action.split)}"
        case Borrow():
            taken = ", ".join(f"{c.pretty} from meld {m}" for m, c in action.taken)
            text = f"Meld {cards_text(action.cards)} borrowing {taken}"
        case MakeGood():
            text = f"Make meld {action.meld} good with {cards_text(action.cards)}"
        case Discard():
            text = "Discard the drawn card" if action.card is None else f"Discard {action.card.pretty}"
        case Pluck():
            text = "Draw from the stock"
        case TakeOption():
            text = "Take the option card"
        case Knock():
            text = "Knock (play this hand)"
        case GoOnTop():
            text = "Go on top (sluff)"
        case Force():
            text = "Force" + (f" {action.card.pretty}" if action.card else "")
        case Claim():
            text = "Claim your pays"
        case OfferSplit():
            text = "Offer to split the tops"
        case AcceptSplit():
            text = "Accept splitting the tops"
        case DeclineSplit():
            text = "Decline splitting the tops"
        case FoulCall():
            text = f"Call seat {action.target + 1} foul"
        case Stand():
            text = "Leave the table"
        case SetAway():
            text = "Sit out" if action.away else "Come back"
        case _:
            text = type(action).__name__
    return (text + suffix)[:100]


@dataclass(frozen=True, slots=True)
class PrivateNote:
    """What the acting player is told privately after an action."""

    text: str


def private_result(
    before: TableState, after: TableState, seat: int, events: Sequence[Event], *, to_act: int | None
) -> str:
    """PRIVATE (ephemeral to the actor): the outcome of his own action, with his next step (``to_act``: whose
    turn it is in ``after``, from the engine)."""
    parts: list[str] = []
    for e in events:
        match e:
            case CardPlucked() if e.seat == seat:
                parts.append(f"You plucked {e.card.pretty}.")
            case OptionTaken() if e.seat == seat:
                parts.append(f"You took the option card {e.card.pretty}; meld it now.")
            case Melded() if e.seat == seat:
                parts.append(f"Melded{f' — a condition worth {e.units} unit(s)' if e.units else ''}.")
            case Discarded() if e.seat == seat:
                parts.append(f"You discarded {e.card.pretty}.")
            case Declared() if e.seat == seat:
                parts.append("You knocked: you play this hand." if e.playing else "You went on top for this hand.")
            case WentOut() if e.seat == seat:
                parts.append("You went out!")
            case Forced() if e.caller == seat:
                parts.append(f"You forced {e.card.pretty}.")
            case _:
                pass
    parts.append(next_step(after, seat, to_act=to_act))
    return " ".join(p for p in parts if p)


def next_step(state: TableState, seat: int, *, to_act: int | None) -> str:
    """PRIVATE hint: what this player can do now (``to_act``: whose turn it is, from the engine)."""
    hand = state.hand
    if hand is None:
        return "The hand is over." if state.last_hand is not None else ""
    if to_act != seat:
        return ""
    if hand.phase is Phase.DECLARING:
        return "Your turn to declare: /knock to play, /sluff to go on top."
    t = hand.turn
    if t is None:
        return ""
    if hand.make_good is not None:
        return f"Make meld {hand.make_good[1]} good (see My hand)."
    match t.step:
        case Step.DRAW:
            return "Your turn: /draw" + (" or /take the option card." if hand.option is not None else ".")
        case Step.DRAWN:
            return "Meld the plucked card (/meld, /add, /borrow or My hand) or /discard it."
        case Step.MUST_USE:
            return "You must meld that card now (/meld, /add or My hand)."
        case Step.MELDING:
            return "Meld more, or /discard a card to end your turn."
    return ""


# --------------------------------------------------------------------------------------------- board text


def board_text(
    state: TableState, names: Names, *, title: str, lines: Sequence[str], host_id: int, practice: bool = False
) -> str:
    """PUBLIC: the board's one line (issue #14.4): the table, what happened last, whose turn it is. The rest
    (recent events, seats, melds) is in the image, its alt text and the Text view button."""
    head = f"**{title}** — "
    hand = state.hand
    seated = sum(1 for s in state.seats if s is not None)
    latest = f"{headline(lines)} " if lines else ""
    if hand is None:
        nxt = "hand 1" if state.hand_no == 0 else f"hand {state.hand_no + 1}"
        todo = "Press **Start** to deal it." if practice else "Join, then press **Start**."
        head += f"{latest}{seated} seated, waiting to deal {nxt}. {todo}"
    else:
        from pancog.game import engine

        actor = engine.to_act(state)
        phase = "declaring" if hand.phase is Phase.DECLARING else "playing"
        head += f"hand {hand.hand_no}, {phase}. {latest}"
        if actor is not None:
            head += f"**{seat_name(state, names, actor)}** to act."
        t = hand.turn
        if t is not None and t.drawn is not None and t.step in (Step.DRAWN, Step.MUST_USE):
            head += f" Card up: {t.drawn.pretty}."
    head += f" Tops: {state.singles_tops}" + (f" + {state.doubles_tops} doubles" if state.doubles_tops else "") + "."
    return head[:1900]


def _is_chip_line(line: str) -> bool:
    return line.startswith("Antes:") or " receives " in line


def headline(lines: Sequence[str]) -> str:
    """The one line that says what happened last: the latest line that is not a payment (those follow the move
    that caused them, and are in Text view and the end-of-hand embed)."""
    return next((line for line in reversed(lines) if not _is_chip_line(line)), lines[-1] if lines else "")


def text_view(lines: Sequence[str], twin: str) -> str:
    """PRIVATE (the Text view button): the board in words: the recent events and the image's text twin."""
    recent = "\n".join(f"• {line}" for line in lines[-12:])
    body = f"**Recent**\n{recent}\n" if recent else ""
    return (body + f"```\n{twin[: 1900 - len(body)]}\n```")[:2000]


def hand_nets(state: TableState, names: Names, nets: Mapping[int, int]) -> str:
    """PUBLIC (the end-of-hand embed): each player's net for the hand, biggest win first."""
    rows = sorted(nets.items(), key=lambda item: -item[1])
    return "\n".join(f"{name_of(names, pid)}: **{n:+,}**" for pid, n in rows) or "No chips changed hands."


def hand_over_title(text: str) -> str:
    """An end-of-hand line as an embed title (embed titles show Markdown literally)."""
    return text.replace("**", "")[:256]


def practice_stranger(host: str) -> str:
    """PRIVATE refusal: someone not seated tried to play at a practice table."""
    return f"This is {host}'s practice table. Start your own with /pan practice."


def seats_text(state: TableState, names: Names) -> str:
    rows = []
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        tags = [chips(s.stack)]
        if s.doubles:
            tags.append("doubles")
        if s.away:
            tags.append("away")
        if s.leaving:
            tags.append("leaving")
        rows.append(f"{i + 1}. {name_of(names, s.player_id)} — {', '.join(tags)}")
    return "\n".join(rows) or "No one is seated."


def turn_ping(user_id: int, what: str, *, declaring: bool) -> str:
    """PUBLIC: the short line that mentions the person to act (issue #14.1). ``what``: the last public line of
    what happened (never a card still in a hand)."""
    todo = "your turn to declare: /knock or /sluff." if declaring else "your turn: /draw, /take or My hand."
    return f"{what} <@{user_id}>, {todo}".strip()[:2000]


def turn_dm(channel: str | None) -> str:
    """PRIVATE (DM, "every turn"): it is the player's turn."""
    return f"Your turn at the Pan table in #{channel}." if channel else "Your turn at your Pan table."


def hand_dm_text(guild: str, channel: str, hand_no: int, text_twin: str) -> str:
    """PRIVATE (DM): the deal."""
    return f"**{guild}** · #{channel} · hand {hand_no}\n{text_twin}"


def outs_text(state: TableState, names: Names, seat: int, chips_now: int) -> str:
    return (
        f"{seat_name(state, names, seat)}'s board would collect {chips(chips_now)} on going out now (outs + going out)."
    )


def rebought(amount: int, stack: int, bank: int) -> str:
    """The private answer to /pan rebuy."""
    return f"You added {chips(amount)}. Your stack is {chips(stack)}; bank: {chips(bank)}."


NEEDS_MODERATOR = "You need the Manage Server permission (or the moderator role) for that."


def leaderboard(rows: Sequence[tuple[int, int]], names: Names) -> str:
    """The public /pan leaderboard message."""
    lines = [f"{i + 1}. {name_of(names, u)} — {chips(n)}" for i, (u, n) in enumerate(rows)]
    return "**Leaderboard**\n" + ("\n".join(lines) or "Nobody has chips yet.")


def granted(amount: int, who: str, bank: int) -> str:
    """The private answer to /pan grant (a negative amount took chips)."""
    verb, prep = ("Granted", "to") if amount > 0 else ("Took", "from")
    return f"{verb} {chips(abs(amount))} {prep} {who}. Their bank: {chips(bank)}."


# --------------------------------------------------------------------------------------------- command replies
# The private (ephemeral) answers of the /pan commands, and their few public texts. The adapters (cog.py,
# practice_cog.py) only call these.

GUIDE_INTRO = (
    "**The Pan guide.** New? `/pan practice` deals you a hand against computer players; **My hand** shows your "
    "cards and every play. With friends: `/pan open`, **Join**, **Start**. Pick a page below."
)
BOARD_REPOSTED = "The board is posted again below."
AMOUNT_NOT_ZERO = "The amount must not be zero."


CONFIRM_LEAVE = (
    "Leave during this hand? You keep paying to its end (conditions, the outs, going out) and cannot play it. "
    "You stand up when it ends."
)
CONFIRM_CLOSE = "Close the table in the middle of a hand? The hand is abandoned and every stack goes back to its bank."
CONFIRM_BUTTONS = {"leave": ("Leave", "Stay"), "close": ("Close the table", "Keep playing")}
NOTHING_DONE = "Nothing changed."


def could_not_sit(reason: str) -> str:
    """PRIVATE: /pan open opened the table but could not seat its host."""
    return f"You could not sit down: {reason}"


def sat_down(stack: int, *, doubles: bool = False, bank: int | None = None) -> str:
    """PRIVATE: the answer to /pan join (with the bank left) or the Join button."""
    text = f"You sat down with {chips(stack)}{' (doubles)' if doubles else ''}."
    return text if bank is None else f"{text} Bank: {chips(bank)}."


def left_table(gone: bool) -> str:
    """PRIVATE: the answer to /pan leave (``gone``: stood up now; else at the end of the hand)."""
    if gone:
        return "You left; your stack is back in your bank."
    return "You will leave when this hand ends (you still pay until then)."


def hand_dealt(hand_no: int) -> str:
    """PRIVATE: the answer to /pan start."""
    return f"Hand {hand_no} dealt. Your hand comes by DM; **My hand** on the board shows it too."


def table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC: /pan close, with what went back to each bank."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return "Table closed. Chips back to the bank:\n" + ("\n".join(lines) or "none")


def rules_text(preset: str, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the table's house rules, one bullet each (≤ 2000 characters)."""
    text = "\n".join(f"• {line}" for line in lines)
    return f"**{preset} rules**\n{text}"[:2000]


def history_text(results: Sequence[str], dealt: int, in_progress: int | None) -> str:
    """PRIVATE: /pan history — the last ten hands' results (``in_progress``: the hand being played, if any)."""
    lines = [f"**Recent hands at this table** ({dealt} dealt)"]
    lines += [f"• {line}" for line in results[-10:]]
    if in_progress is not None:
        lines.append(f"• Hand {in_progress} is in progress.")
    return "\n".join(lines)


def balance_text(bank: int, on_tables: int) -> str:
    """PRIVATE: /pan balance."""
    extra = f" Plus {chips(on_tables)} on tables." if on_tables else ""
    return f"Bank: {chips(bank)}.{extra}"


def daily_text(*, claimed: bool, amount: int, bank: int, hours_left: int) -> str:
    """PRIVATE: /pan daily (claimed now, or already claimed with the hours until the next claim)."""
    if claimed:
        return f"You claimed {chips(amount)}. Bank: {chips(bank)}."
    return f"Already claimed today; next claim in about {hours_left} h. Bank: {chips(bank)}."


def server_config_text(preset: str, starting_chips: int, daily_amount: int, moderator_role_id: int | None) -> str:
    """PRIVATE: /pan config — the server's defaults after the change."""
    role = f"<@&{moderator_role_id}>" if moderator_role_id else "none"
    return f"Preset: {preset}. Starting chips: {starting_chips:,}. Daily: {daily_amount:,}. Moderator role: {role}."


CHANNEL_NEEDED = "Pick the channel to add or remove."


def channels_text(channel_ids: Sequence[int]) -> str:
    """PRIVATE: /panadmin channels — where Pan may be used now."""
    if not channel_ids:
        return "Pan can be used in every channel of this server."
    return "Pan can be used only in: " + ", ".join(f"<#{c}>" for c in channel_ids) + "."


def pan_not_here(channel_ids: Sequence[int]) -> str:
    """PRIVATE refusal: the server allows Pan only in some channels."""
    return "Pan isn't played in this channel. Try " + ", ".join(f"<#{c}>" for c in channel_ids[:10]) + "."


def settings_text(*, ping: str, dm_mode: str, dm_closed: bool, sort: str, four_color: bool) -> str:
    """PRIVATE: /pan settings — the player's preferences after the change."""
    closed = " (your DMs are closed: use My hand)" if dm_closed else ""
    pings = "a mention in the channel at your turn" if ping == "turn" else "off"
    return f"Turn pings: {pings}. DMs: {dm_mode}{closed}. Sort: {sort}. Four-colour: {'on' if four_color else 'off'}."


def floor_fouled(who: str) -> str:
    """PRIVATE: a moderator who is not seated made the floor's foul call."""
    return f"The floor called {who}'s hand foul."


def not_seated_here(who: str) -> str:
    """PRIVATE refusal: the member named in a command has no seat at this table."""
    return f"{who} is not seated at this table."


def meld_choice(meld: Meld) -> str:
    """An autocomplete choice for one of the player's melds (≤ 100 characters)."""
    return f"{meld.id}: {cards_text(meld.cards)}"[:100]


# --------------------------------------------------------------------------------------------- computer players

HINT_REFUSED = (
    "Hints are only for practice tables (/pan practice) where everyone else is a computer player; "
    "at this table it would be coaching."
)
HINT_NO_HAND = "No hand in progress."
HINT_NOT_YOUR_MOVE = "Nothing to suggest: it is not your move."


def hint_text(sentence: str) -> str:
    """PRIVATE: /hint — the suggestion's one sentence names the play ("Knock: about 30% of the unseen cards ...")."""
    return f"💡 {sentence}"[:2000]


def practice_title(player: str) -> str:
    """The title of a practice table (board and images)."""
    return f"Practice: {player} vs the computer"


def practice_opened(*, opponents: int, level: str, real_chips: bool, next_hand_delay: float | None) -> str:
    """PRIVATE: the answer to /pan practice once everyone is seated and the first hand dealt."""
    chips_used = "chips from your bank" if real_chips else "practice chips (your bank is untouched)"
    after = (
        f"the next hand is dealt {next_hand_delay:g} s after each hand ends"
        if next_hand_delay is not None
        else "press Start"
    )
    return (
        f"Practice table: you against {opponents} {level} computer player{'s' if opponents > 1 else ''}, "
        f"playing {chips_used}. Your hand is in your DMs and under **My hand**; `/hint` suggests a play; {after}. "
        "`/pan close` ends the session."
    )


def computer_seated(name: str, stack: int) -> str:
    """PRIVATE: the answer to /pan addbot."""
    return f"{name} sat down with {chips(stack)}. It plays through the same commands as everyone, at a human pace."


# --------------------------------------------------------------------------------------------- board, hand panel

DONE = "Done."


def table_title(channel_name: str | None) -> str:
    """A table's title when its host gave none."""
    return f"Pan at #{channel_name}" if channel_name else "Pan table"


def board_failed(error: str) -> str:
    """A failed board update, as /pan status lists it."""
    return f"board update failed: {error}"


SELECT_PLACEHOLDERS = {"play": "Play: meld, draw, declare…", "discard": "Discard a card"}
CHOOSE_A_PLAY = "Choose a play."
PANEL_OUT_OF_DATE = "That panel is out of date: open My hand again."


def nothing_to(what: str) -> str:
    return f"There is nothing you can {what} now."


def clock_line(name: str, deadline: int) -> str:
    """The board's countdown line (Discord renders ``<t:..:R>`` live)."""
    return f" ⏱ {name} to play · time runs out <t:{deadline}:R>"


def hand_now(text_twin: str) -> str:
    return "Your hand now: " + text_twin


def not_in_hand(*, dealt: bool) -> str:
    return "You are not in a hand right now." + (
        " Wait for the next deal." if dealt else " Press Start on the board to deal."
    )


def missing_permissions(where: str, error: str) -> str:
    return (
        f"I can't post the Pan table in {where}: Discord says I am missing permissions ({error}). "
        "Please give me View Channel, Send Messages, Attach Files and Embed Links there "
        "(and Send Messages in Threads for a thread). The game is saved; the board comes back "
        "with the next move once I can post."
    )


def _cashouts(returned: Iterable[tuple[int, int]], names: Names) -> str:
    return "\n".join(f"{name_of(names, u)}: {chips(n)}" for u, n in returned) or "none"


def channel_deleted(returned: Mapping[int, int], names: Names) -> str:
    return "Your Pan table's channel was deleted, so the table is closed. Chips back to the bank:\n" + _cashouts(
        returned.items(), names
    )


# --------------------------------------------------------------------------------------------- operations

WELCOME_BACK = "Welcome back: you will be dealt in from the next hand."
STATUS_FOR_MODERATORS = "Only server moderators can see the bot status."
AUDIT_FOR_MODERATORS = "Only server moderators can run the ledger audit."
MARKED_AWAY = (
    "Your time ran out twice in a row at a Pan table, so you are marked **away**: you will not be dealt in, "
    "and you will be stood up (stack back to your bank) when this hand ends. Use `/pan back` there to stay."
)


def time_warning(name: str, seconds_left: float) -> str:
    return f"⏰ {name}: {int(seconds_left)} s left to play."


def idle_closed(cashouts: Iterable[tuple[int, int]], names: Names) -> str:
    return "This table closed after 30 minutes without a hand. Chips back to the bank:\n" + _cashouts(cashouts, names)


def audit_text(summary: str, books: Sequence[str]) -> str:
    return "Ledger audit: " + summary + ("\n" + "\n".join(books) if books else "")


# --------------------------------------------------------------------------------------------- the guide (#14.6)

GUIDE: tuple[tuple[str, str, str], ...] = (
    (
        "start",
        "Start here",
        "**Pan** (Panguingue) is a ten-card rummy played for chips.\n\n"
        "**Try a hand now:** `/pan practice` seats you with computer players and practice chips (your bank is "
        "untouched). Press **My hand** on the board: it shows your cards privately and lists every legal play, "
        "best first, with what it pays. Click a play to make it. `/hint` explains the suggested play there.\n\n"
        "**With friends:** `/pan open` in a channel, friends press **Join**, anyone presses **Start**. "
        "When it is your turn the bot mentions you (`/pan settings ping:off` to stop it).",
    ),
    (
        "hand",
        "How a hand goes",
        "1. **The deal**: ten cards each (by DM, and always under **My hand**). The decks have no 8s, 9s or 10s, "
        "so 7 and J are next to each other.\n"
        "2. **Declare**: each player **knocks** (plays) or **sluffs** (sits the hand out, losing only the ante).\n"
        "3. **Your turn**: **Draw** the top card of the stock, or **Take** the option card if it melds at once; "
        "meld the drawn card (or it becomes your discard); lay more melds if you like; **discard** one card.\n"
        "4. **Going out**: meld all eleven cards. Everyone in the hand pays you your conditions again plus the "
        "going-out pay, and you take the tops.",
    ),
    (
        "melds",
        "Melds and what pays",
        "A **meld** is a **set** (three or more of one rank: all one suit, or three different suits) or a "
        "**rope** (three or more of one suit in sequence, e.g. 6♥ 7♥ J♥).\n\n"
        "Some melds are **conditions**: they pay you at once, from every player in the hand. Three **valle** "
        "cards (3s, 5s or 7s) of one suit pay 2 units, other one-suit sets 1, a rope from the Ace or to the King "
        "1; spades pay double. Adding cards to a paying meld can pay again.",
    ),
    (
        "words",
        "Words",
        "**knock**: play this hand. **sluff** (go on top): sit it out for the ante.\n"
        "**ante**: what each hand costs, paid into the **tops** (the pot the winner takes).\n"
        "**unit**: the table's stake; every pay is a number of units (`/pan open stakes:`).\n"
        "**valle**: the 3s, 5s and 7s, the cards whose sets pay more.\n"
        "**rope**: a run of one suit. **condition**: a meld that pays at once.\n"
        "**option card**: the previous player's unused pluck; you may take it if it melds at once.\n"
        "**outs**: what your melds collect when you go out (`/outs`). **bust-out**: conditions made on the "
        "going-out turn are paid twice.\n"
        "**force**: put a card that fits someone's melds on them; they must use it. **foul**: a dead hand that "
        "still pays. **split**: the last two players share the tops.",
    ),
    (
        "help",
        "Where to get help",
        "**My hand** (or `/hand`): your cards and every legal play, best first, privately.\n"
        "`/hint` (practice tables): the suggested play in one sentence.\n"
        "`/pan rules`: the five rules that matter at this table, and all of them behind a button.\n"
        "**Text view** on the board: the table in words, for screen readers.\n"
        "`/pan settings`: turn pings, DMs, how your hand is sorted, a four-colour deck.",
    ),
)
GUIDE_PLACEHOLDER = "Choose a page of the guide"


def guide_page(key: str) -> tuple[str, str]:
    """PRIVATE: one page of the in-Discord guide (title, text); unknown keys give the first page."""
    for name, title, text in GUIDE:
        if name == key:
            return title, text
    return GUIDE[0][1], GUIDE[0][2]


def rules_top_five(preset: str, rules: Rules, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the five rules that matter most at this table (the rest behind All rules)."""

    def find(prefix: str) -> str:
        return next((line for line in lines if line.startswith(prefix)), "")

    unit = chips(rules.ante_chips)
    five = [
        f"Each hand costs the ante, one unit ({unit}), into the tops; every pay is a number of units.",
        "Knock to play the hand, or sluff (go on top) and lose only the ante.",
        "Your turn: draw (or take the option card if it melds at once), use the drawn card or discard it, "
        "meld, then discard one card.",
        find("Conditions:") or "Some melds (conditions) pay at once.",
        find("Going out") or "Meld all eleven cards to go out.",
    ]
    return f"**{preset} rules: the five that matter most**\n" + "\n".join(f"{i}. {r}" for i, r in enumerate(five, 1))
