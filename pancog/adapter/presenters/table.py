"""The table in words and pictures: the public board (its line, the image's snapshot, the event lines, the
end-of-hand outcome and nets), turn pings, and the answers of the table commands (/pan open, join, leave, start,
close, rules; practice tables; the clock's warnings and the idle closer).

Public texts never hold a card that is still in someone's hand: the snapshot carries only counts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pancog.adapter.presenters.common import (
    Names,
    chips,
    declaration_note,
    image_name,
    meld_snapshots,
    name_of,
    plain_text,
    seat_name,
    signed,
    status_pill,
)
from pancog.adapter.presenters.table_events import item_words
from pancog.adapter.safety import shown
from pancog.game.cards import Card
from pancog.game.events import (
    Event,
    HandEnded,
    WentOut,
)
from pancog.game.i18n import N_, current, tr, trn
from pancog.game.melds import Meld
from pancog.game.rules import Rules
from pancog.game.state import DrawSource, HandState, Phase, PlayerStatus, Pot, Step, TableState
from pancog.services.chips import HandResult
from renderer import InPlayHow, NetSnapshot, OutcomeSnapshot, PaymentSnapshot, SeatSnapshot, SeatStatus, TableSnapshot


def _seat_status(state: TableState, hand: HandState | None, seat: int) -> SeatStatus:
    s = state.seats[seat]
    if hand is None or hand.players[seat] is None:
        return SeatStatus.AWAY if s is not None and s.away else SeatStatus.WAITING
    pl = hand.players[seat]
    if pl is None:
        return SeatStatus.WAITING
    return status_pill(pl.status, flat=pl.board_count >= 10 and not pl.hand)


def _in_play(state: TableState, names: Names) -> tuple[Card | None, str, InPlayHow]:
    """The card lying face up for everyone (just plucked, taken or forced), who holds it, and how it came."""
    hand = state.hand
    t = hand.turn if hand is not None else None
    if t is None or t.drawn is None or t.step not in (Step.DRAWN, Step.MUST_USE):
        return None, "", "plucked"
    s = state.seat(t.seat)
    who = image_name(names, s.player_id)[0] if s is not None else tr("seat {number}", number=t.seat + 1)
    how: InPlayHow = (
        "taken" if t.source is DrawSource.OPTION else "forced" if t.source is DrawSource.FORCED else "plucked"
    )
    return t.drawn, who, how


def table_snapshot(
    state: TableState, names: Names, *, title: str, notes: Sequence[str] = (), four_color: bool = False
) -> TableSnapshot:
    """The public table (never a hand's cards: only counts). ``notes`` may carry Markdown: the image gets plain text."""
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
        name, computer = image_name(names, s.player_id)
        seats.append(
            SeatSnapshot(
                name=name,
                computer=computer,
                chips=s.stack,
                status=_seat_status(state, hand, i),
                doubles=s.doubles,
                is_turn=to_act == i,
                melds=meld_snapshots(pl.melds, state.rules) if pl is not None else (),
                hand_count=len(pl.hand) if pl is not None and hand is not None else 0,
            )
        )
    in_play, by, how = _in_play(state, names)
    return TableSnapshot(
        title=title[:80] or tr("Pan table"),
        hand_no=state.hand_no,
        seats=tuple(seats),
        to_act=index_of.get(to_act) if to_act is not None else None,
        in_hand=hand is not None,
        in_play=in_play,
        in_play_by=by,
        in_play_how=how,
        discard=hand.muck[-1] if hand is not None and hand.muck else None,
        discard_count=len(hand.muck) if hand is not None else 0,
        discard_is_option=hand is not None and hand.option is not None,
        stock_count=len(hand.stock) if hand is not None else 0,
        singles_tops=state.singles_tops,
        doubles_tops=state.doubles_tops,
        notes=tuple(plain_text(n) for n in notes[-3:]),
        four_color=four_color,
        lang=current(),
    )


def _to_act(state: TableState) -> int | None:
    from pancog.game import engine

    return engine.to_act(state)


def outcome_snapshot(
    result: HandResult,
    names: Names,
    *,
    melds: Sequence[Meld],
    rules: Rules,
    went: WentOut | None,
    title: str,
    four_color: bool = False,
) -> OutcomeSnapshot | None:
    """The end-of-hand image, when the hand ended with a winner (None otherwise). Every chip figure is the hand's
    :class:`~pancog.services.chips.HandResult` (the ledger's postings for the hand and the chip events behind them):
    each payment is everything that player paid the winner this hand, itemised; the tops taken; the winner's net
    and every player's net. ``melds`` are the winner's board as it lies, ``went`` the going out (for the units).
    """
    winner = result.winner
    if winner is None:
        return None

    def who(user_id: int) -> tuple[str, bool]:
        return image_name(names, user_id)

    payments: list[PaymentSnapshot] = []
    tops = {Pot.SINGLES: 0, Pot.DOUBLES: 0}
    for payer, items in result.received_from(winner).items():
        if isinstance(payer, Pot):
            tops[payer] = tops.get(payer, 0) + sum(items.values())
            continue
        note = ", ".join(f"{item_words(reason)} {n}" for reason, n in items.items() if n)
        payments.append(PaymentSnapshot(payer=who(payer)[0], chips=sum(items.values()), note=note))
    order = {user: i for i, user in enumerate(result.players)}
    nets = sorted(result.nets, key=lambda kv: (kv[0] != winner, -kv[1], order.get(kv[0], 0)))
    return OutcomeSnapshot(
        title=title[:80] or tr("Pan table"),
        hand_no=result.hand_no,
        winner=who(winner)[0],
        melds=meld_snapshots(melds, rules),
        winner_net=result.net(winner),
        conditions=went.outs_units if went else 0,
        bust_out=went.bust_out_units if went else 0,
        going_out=rules.going_out_units if went else 0,
        singles_tops=tops[Pot.SINGLES],
        doubles_tops=tops[Pot.DOUBLES],
        payments=tuple(payments),
        nets=tuple(NetSnapshot(name=who(user)[0], chips=n, computer=who(user)[1]) for user, n in nets),
        four_color=four_color,
        lang=current(),
    )


def live_outcome(
    result: HandResult, after: TableState, events: Sequence[Event], names: Names, *, title: str, four_color: bool
) -> OutcomeSnapshot | None:
    """:func:`outcome_snapshot` of a hand that has just ended (the winner's board from the finished hand, the going
    out from the last action's events)."""
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    hand = after.last_hand
    winner = hand.players[ended.winner] if hand is not None and ended is not None and ended.winner is not None else None
    went = next((e for e in events if isinstance(e, WentOut)), None)
    melds = winner.melds if winner is not None else ()
    return outcome_snapshot(
        result, names, melds=melds, rules=after.rules, went=went, title=title, four_color=four_color
    )


def board_text(
    state: TableState,
    names: Names,
    *,
    title: str,
    lines: Sequence[str],
    host_id: int,
    practice: bool = False,
    tournament: str | None = None,
) -> str:
    """PUBLIC: the board's one line: the table, what happened last, whose turn it is. The rest
    (recent events, seats, melds) is in the image, its alt text and the Text view button. ``tournament``: a
    tournament table's level line (the tournament deals there: nobody joins or presses Start)."""
    head = f"**{shown(title, limit=80)}** — "
    hand = state.hand
    seated = sum(1 for s in state.seats if s is not None)
    latest = f"{headline(lines)} " if lines else ""
    if hand is None:
        todo = tr("Press **Start** to deal it.") if practice else tr("Join, then press **Start**.")
        if tournament is not None:
            todo = tr("The tournament deals it.")
        waiting = tr("{seated} seated, waiting to deal hand {n}.", seated=seated, n=state.hand_no + 1)
        head += f"{latest}{waiting} {todo}"
    else:
        from pancog.game import engine

        actor = engine.to_act(state)
        if hand.phase is Phase.DECLARING:
            head += tr("hand {n}, declaring.", n=hand.hand_no) + f" {latest}"
        else:
            head += tr("hand {n}, playing.", n=hand.hand_no) + f" {latest}"
        if actor is not None:
            head += tr("**{name}** to act.", name=seat_name(state, names, actor))
        if hand.last_declarer is not None:  # a declaration that can still change (RULES.md §2.5): say until when
            window = declaration_note(state, names, hand.last_declarer, you=False)
            head += f" {window}" if window else ""
        t = hand.turn
        if t is not None and t.drawn is not None and t.step in (Step.DRAWN, Step.MUST_USE):
            head += " " + tr("Card up: {card}.", card=t.drawn.pretty)
    if state.doubles_tops:
        head += " " + tr("Tops: {singles} + {doubles} doubles.", singles=state.singles_tops, doubles=state.doubles_tops)
    else:
        head += " " + tr("Tops: {singles}.", singles=state.singles_tops)
    if tournament is not None:
        head += f"\n{tournament}"
    return head[:1900]


def _is_chip_line(line: str) -> bool:
    antes = tr("Antes: {chips} into {tops}.").split("{")[0]
    receives = tr("{payee} receives {chips} — {what} ({payers}).").split("{chips}")[0].split("}")[-1]
    return line.startswith(antes) or receives in line


def headline(lines: Sequence[str]) -> str:
    """The one line that says what happened last: the latest line that is not a payment (those follow the move
    that caused them, and are in Text view and the end-of-hand embed)."""
    return next((line for line in reversed(lines) if not _is_chip_line(line)), lines[-1] if lines else "")


def board_in_words(lines: Sequence[str], twin: str) -> str:
    """PRIVATE (the Text view button): the board in words: the recent events and the image's text twin."""
    recent = "\n".join(f"• {line}" for line in lines[-12:])
    body = f"**{tr('Recent')}**\n{recent}\n" if recent else ""
    return (body + f"```\n{twin[: 1900 - len(body)]}\n```")[:2000]


def nets_text(result: HandResult, names: Names) -> str:
    """PUBLIC (the end-of-hand embed): each player's net for the hand (the hand's result: the same figures as the
    outcome image, the replay and the ledger), biggest win first."""
    order = {user: i for i, user in enumerate(result.players)}
    rows = sorted(result.nets, key=lambda item: (-item[1], order[item[0]]))
    return "\n".join(f"{name_of(names, user)}: **{signed(n)}**" for user, n in rows) or tr("No chips changed hands.")


def hand_over_title(text: str) -> str:
    """An end-of-hand line as an embed title (embed titles show Markdown literally)."""
    return text.replace("**", "")[:256]


def practice_stranger(host: str) -> str:
    """PRIVATE refusal: someone not seated tried to play at a practice table."""
    return tr("This is {host}'s practice table. Start your own with /pan practice.", host=host)


def seats_text(state: TableState, names: Names) -> str:
    rows = []
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        tags = [chips(s.stack)]
        if s.doubles:
            tags.append(tr("doubles"))
        if s.away:
            tags.append(tr("away"))
        if s.leaving:
            tags.append(tr("leaving"))
        rows.append(f"{i + 1}. {name_of(names, s.player_id)} — {', '.join(tags)}")
    return "\n".join(rows) or tr("No one is seated.")


def turn_ping(user_id: int, what: str, *, declaring: bool) -> str:
    """PUBLIC: the short line that mentions the person to act. ``what``: the last public line of
    what happened (never a card still in a hand)."""
    todo = tr("your turn to declare: /knock or /sluff.") if declaring else tr("your turn: /draw, /take or My hand.")
    return f"{what} <@{user_id}>, {todo}".strip()[:2000]


def turn_dm(channel: str | None) -> str:
    """PRIVATE (DM, "every turn"): it is the player's turn."""
    return (
        tr("Your turn at the Pan table in #{channel}.", channel=channel)
        if channel
        else tr("Your turn at your Pan table.")
    )


OUTS_NOT_SEATED = N_(
    "You are not playing at this table, so you have no outs to call. To see what a player's board would collect, "
    "name them: `/outs player:@name`."
)


def outs_text(state: TableState, names: Names, seat: int, chips_now: int, *, you: bool = False) -> str:
    """PRIVATE: /outs — what ``seat``'s board would collect on going out now (``you``: the asker's own board)."""
    who = seat_name(state, names, seat)
    hand = state.hand
    if hand is None:
        return tr("No hand is in progress, so there are no outs to call.")
    player = hand.players[seat]
    if player is None or player.status not in (PlayerStatus.IN, PlayerStatus.UNDECLARED):
        if you:
            return tr("You are not in action in this hand, so there are no outs to call.")
        return tr("{name} is not in action in this hand, so there are no outs to call.", name=who)
    what = tr("outs + going-out units") if state.rules.going_out_units else tr("the outs")
    if you:
        return tr("Your board would collect {chips} on going out now ({what}).", chips=chips(chips_now), what=what)
    return tr(
        "{name}'s board would collect {chips} on going out now ({what}).", name=who, chips=chips(chips_now), what=what
    )


BOARD_REPOSTED = N_("The board is posted again below.")
CONFIRM_LEAVE = N_(
    "Leave during this hand? You keep paying to its end (conditions, the outs, going out) and cannot play it. "
    "You stand up when it ends."
)


def confirm_leave_undeclared(ante: int, forfeit: int) -> str:
    """PRIVATE: the question before leaving a hand one was dealt into and has not declared yet (he goes on top)."""
    if forfeit:
        return tr(
            "Leave during this hand? You have not declared yet, so you go on top: you lose your ante ({ante}, already "
            "in the tops) and pay a forfeit of {forfeit} into them. The rest of your stack goes back to your bank now.",
            ante=chips(ante),
            forfeit=chips(forfeit),
        )
    return tr(
        "Leave during this hand? You have not declared yet, so you go on top: you lose your ante ({ante}, already "
        "in the tops). The rest of your stack goes back to your bank now.",
        ante=chips(ante),
    )


CONFIRM_CLOSE = N_(
    "Close the table in the middle of a hand? The hand is abandoned and every stack goes back to its bank."
)
CONFIRM_BUTTONS = {"leave": (N_("Leave"), N_("Stay")), "close": (N_("Close the table"), N_("Keep playing"))}
NOTHING_DONE = N_("Nothing changed.")


def could_not_sit(reason: str) -> str:
    """PRIVATE: /pan open opened the table but could not seat its host."""
    return tr("You could not sit down: {reason}", reason=reason)


def sat_down(stack: int, *, doubles: bool = False, bank: int | None = None, season: bool = False) -> str:
    """PRIVATE: the answer to /pan join (with the bank left; ``season``: a bank season's table) or the Join button."""
    text = (
        tr("You sat down with {chips} (doubles).", chips=chips(stack))
        if doubles
        else tr("You sat down with {chips}.", chips=chips(stack))
    )
    if bank is None:
        return text
    left = tr("Season bank: {chips}.", chips=chips(bank)) if season else tr("Bank: {chips}.", chips=chips(bank))
    return f"{text} {left}"


def left_table(gone: bool) -> str:
    """PRIVATE: the answer to /pan leave (``gone``: stood up now; else at the end of the hand)."""
    if gone:
        return tr("You left; your stack is back in your bank.")
    return tr("You will leave when this hand ends (you still pay until then).")


def hand_dealt(hand_no: int) -> str:
    """PRIVATE: the answer to /pan start."""
    return tr("Hand {n} dealt. Your hand comes by DM; **My hand** on the board shows it too.", n=hand_no)


def table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC: /pan close, with what went back to each bank."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return tr("Table closed. Chips back to the bank:") + "\n" + ("\n".join(lines) or tr("none"))


def rules_text(preset: str, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the table's house rules, one bullet each (≤ 2000 characters)."""
    text = "\n".join(f"• {line}" for line in lines)
    return (tr("**{preset} rules**", preset=preset) + f"\n{text}")[:2000]


def floor_fouled(who: str) -> str:
    """PRIVATE: a moderator who is not seated made the floor's foul call."""
    return tr("The floor called {name}'s hand foul.", name=shown(who))


def not_seated_here(who: str) -> str:
    """PRIVATE refusal: the member named in a command has no seat at this table."""
    return tr("{name} is not seated at this table.", name=shown(who))


def practice_title(player: str) -> str:
    """The title of a practice table (board and images)."""
    return tr("Practice: {player} vs the computer", player=player)


def practice_opened(*, opponents: int, level: str, real_chips: bool, next_hand_delay: float | None) -> str:
    """PRIVATE: the answer to /pan practice once everyone is seated and the first hand dealt."""
    chips_used = tr("chips from your bank") if real_chips else tr("practice chips (your bank is untouched)")
    after = (
        tr("the next hand is dealt {seconds} s after each hand ends", seconds=f"{next_hand_delay:g}")
        if next_hand_delay is not None
        else tr("press Start")
    )
    return tr(
        "Practice table: you against {opponents}, playing {chips}. Your hand is in your DMs and under "
        "**My hand**; `/hint` suggests a play; {after}. `/pan close` ends the session.",
        opponents=trn("{n} {level} computer player", "{n} {level} computer players", opponents, level=level),
        chips=chips_used,
        after=after,
    )


def computer_seated(name: str, stack: int) -> str:
    """PRIVATE: the answer to /pan addbot."""
    return tr(
        "{name} sat down with {chips}. It plays through the same commands as everyone, at a human pace.",
        name=name,
        chips=chips(stack),
    )


def table_title(channel_name: str | None) -> str:
    """A table's title when its host gave none."""
    return tr("Pan at #{channel}", channel=channel_name) if channel_name else tr("Pan table")


def countdown_line(name: str, deadline: int) -> str:
    """The board's countdown line (Discord renders ``<t:..:R>`` live)."""
    return " ⏱ " + tr("{name} to play · time runs out {when}", name=name, when=f"<t:{deadline}:R>")


def missing_permissions(where: str, error: str) -> str:
    return tr(
        "I can't post the Pan table in {where}: Discord says I am missing permissions ({error}). "
        "Please give me View Channel, Send Messages, Attach Files and Embed Links there "
        "(and Send Messages in Threads for a thread). The game is saved; the board comes back "
        "with the next move once I can post.",
        where=where,
        error=error,
    )


def _cashouts(returned: Iterable[tuple[int, int]], names: Names) -> str:
    return "\n".join(f"{name_of(names, u)}: {chips(n)}" for u, n in returned) or tr("none")


def channel_deleted(returned: Mapping[int, int], names: Names) -> str:
    return (
        tr("Your Pan table's channel was deleted, so the table is closed. Chips back to the bank:")
        + "\n"
        + _cashouts(returned.items(), names)
    )


WELCOME_BACK = N_("Welcome back: you will be dealt in from the next hand.")
MARKED_AWAY = N_(
    "Your time ran out twice in a row at a Pan table, so you are marked **away**: you will not be dealt in, "
    "and you will be stood up (stack back to your bank) when this hand ends. Use `/pan back` there to stay."
)


def time_warning(name: str, seconds_left: float) -> str:
    return "⏰ " + tr("{name}: {seconds} s left to play.", name=name, seconds=int(seconds_left))


def idle_closed(cashouts: Iterable[tuple[int, int]], names: Names) -> str:
    return (
        tr("This table closed after 30 minutes without a hand. Chips back to the bank:")
        + "\n"
        + _cashouts(cashouts, names)
    )


OLD_BOARD = N_("An earlier board: the table's board is the newest one below.")


OPEN_FORM_TITLE = N_("Open a Pan table")
OPEN_FORM_PRESET = N_("Rules preset")
OPEN_FORM_STAKES = N_("Stakes (chips per unit)")
OPEN_FORM_SEATS = N_("Most players")
OPEN_FORM_TURN = N_("Seconds per turn")
OPEN_FORM_AWAY = N_("A computer plays for players marked away")


def form_range_hint(low: int, high: int) -> str:
    """A setup form's placeholder for a number: its range, and that blank means the default."""
    return tr("{low}-{high}; blank: the default", low=low, high=high)


def form_number_refused(field: str, low: int, high: int, given: str) -> str:
    """PRIVATE: a number typed into a setup form that is not one, or out of range; nothing was opened."""
    return tr(
        "{field}: “{given}” is not a whole number from {low} to {high}. Nothing was opened; try again.",
        field=tr(field),
        given=given,
        low=low,
        high=high,
    )


def form_choice_refused(field: str, given: str) -> str:
    """PRIVATE: a form's choice that is not one of those offered; nothing was opened."""
    return tr(
        "{field}: “{given}” is not one of the choices. Nothing was opened; try again.", field=tr(field), given=given
    )
