"""Replays, history and watching with consent.

The replay's words and snapshots work from a :class:`pancog.services.replay.HandReplay`, whose steps hold only
what the viewer may see (the public board and the viewer's own cards): nothing here can show another player's
hidden cards. Functions whose output holds the viewer's own cards say PRIVATE."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

from pancog.adapter.presenters.common import (
    Names,
    cards_text,
    image_name,
    image_name_of,
    meld_snapshots,
    name_of,
    plain_text,
    plural,
    signed,
    status_pill,
)
from pancog.adapter.presenters.table import outcome_snapshot
from pancog.adapter.presenters.table_events import describe_events
from pancog.adapter.safety import code_block
from pancog.game.engine import PlayerView
from pancog.game.events import CardPlucked, OptionTaken, WentOut
from pancog.game.i18n import N_, current, tr, trn
from pancog.game.state import DrawSource, HandState, Phase, PlayerHand, Seat, Step, TableState
from pancog.services.chips import HandResult
from pancog.services.replay import HandRecord, HandReplay, HandSummary, ReplayStep
from renderer import (
    HandSnapshot,
    InPlayHow,
    OutcomeSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
    hand_text,
    outcome_text,
    table_text,
)

MAX_JUMPS = 25  # a select offers at most 25 options
SHARED = N_("The replay is posted in the channel.")
JUMP_PLACEHOLDER = N_("Jump to a turn")
JUMP_NOT_OFFERED = N_("Pick a turn from the list.")
SHARE_NOT_OVER = N_("A hand can be shared once it is over.")
WATCH_BUTTON = N_("👁 See the shared hand")
WATCH_STOPPED_PRIVATE = N_("You no longer share your cards.")


def replay_button_label(verb: str, hand_no: int) -> str:
    """The Share button of a step-through, or a hand's Replay button under /pan history."""
    return tr("Share") if verb == "share" else tr("Replay hand {n}", n=hand_no)


def _seat_at(step: ReplayStep, index: int) -> Seat | None:
    """A seat after the step, or before it when the player cashed out as the hand ended (still on the board)."""
    after = step.seats_after[index] if index < len(step.seats_after) else None
    if after is not None:
        return after
    return step.seats_before[index] if index < len(step.seats_before) else None


def _public_states(step: ReplayStep) -> tuple[TableState, TableState]:
    """Before/after table states holding only public facts (seats, tops; the boards' melds after a hand ended), for
    the shared presenters that name seats and read a finished hand's melds."""
    rules = step.board.rules
    seats = tuple(_seat_at(step, i) for i in range(len(step.seats_after)))
    before = TableState(rules=rules, seats=step.seats_before, hand_no=step.board.hand_no)
    last = None
    if step.ended is not None:
        players: list[PlayerHand | None] = [None] * len(seats)
        for view in step.board.players:
            players[view.seat] = PlayerHand(seat=view.seat, status=view.status, melds=view.melds)
        last = HandState(hand_no=step.board.hand_no, seed=None, first=0, order=(), players=tuple(players))
    after = TableState(
        rules=rules,
        seats=seats,
        singles_tops=step.board.singles_tops,
        doubles_tops=step.board.doubles_tops,
        hand_no=step.board.hand_no,
        last_hand=last,
    )
    return before, after


def step_line(step: ReplayStep, names: Names) -> str:
    """What happened at this step, in one line (public: the viewer's own deal is not described)."""
    before, after = _public_states(step)
    lines = describe_events(before, after, names, step.events)
    if lines:
        return " ".join(lines)
    seat = _seat_at(step, step.actor) if step.actor is not None else None
    if seat is None:
        return tr("The table made a move that shows nothing on the board.")
    return tr("{name} made a move that shows nothing on the board.", name=name_of(names, seat.player_id))


def step_title(replay: HandReplay, index: int) -> str:
    return tr("Hand {n} · step {step} of {steps}", n=replay.hand_no, step=index + 1, steps=len(replay.steps))


def summary_line(summary: HandSummary, names: Names) -> str:
    """One hand in the history: its number, its result and its length."""
    ended = summary.ended
    if ended is None:
        result = tr("in progress")
    elif summary.splitter_ids:
        result = tr("{names} split the tops", names=tr(" and ").join(name_of(names, p) for p in summary.splitter_ids))
    elif ended.reason.value == "nobody":
        result = tr("nobody played")
    elif ended.reason.value == "void":
        result = tr("void (the stock ran out)")
    elif summary.winner_id is not None:
        who = name_of(names, summary.winner_id)
        result = tr("{name} went out", name=who) if ended.reason.value == "out" else tr("{name} won", name=who)
        if summary.result is not None:  # the winner's net for the hand (the ledger's), never what he collected
            result += " " + tr("(net {net})", net=signed(summary.result.net(summary.winner_id)))
    else:
        result = tr("over")
    return tr(
        "Hand {n} — {result} · {players}, {actions}",
        n=summary.hand_no,
        result=result,
        players=plural(len(summary.dealt), "player"),
        actions=trn("{n} action", "{n} actions", summary.actions),
    )


def replay_history_text(summaries: Sequence[HandSummary], names: Names) -> str:
    """PRIVATE reply to /pan history: recent hands, newest first, each with a Replay button below."""
    if not summaries:
        return tr("No hand has been dealt at this table yet.")
    lines = [tr("**Recent hands at this table** (press Replay to step through one)")]
    lines += [f"• {summary_line(s, names)}" for s in reversed(summaries)]
    return "\n".join(lines)[:2000]


def jump_options(replay: HandReplay, names: Names) -> list[tuple[str, str]]:
    """The "jump to turn" choices, (value, label): the deal, every turn's draw, the end — at most ``MAX_JUMPS``,
    evenly spread when a hand has more turns. Values are step indexes; only these are honoured."""
    last = len(replay.steps) - 1
    turns = [s.index for s in replay.steps if any(isinstance(e, CardPlucked | OptionTaken) for e in s.events)]
    picks = sorted({0, *turns, last}) if last >= 0 else []
    if len(picks) > MAX_JUMPS:
        inner = picks[1:-1]
        keep = MAX_JUMPS - 2
        picks = [0, *(inner[k * len(inner) // keep] for k in range(keep)), last]
    options: list[tuple[str, str]] = []
    for index in picks:
        if index == 0:
            label = tr("The deal")
        elif index == last and replay.summary.finished:
            label = tr("The end: {summary}", summary=summary_line(replay.summary, names))
        else:
            turn = turns.index(index) + 1 if index in turns else index
            label = tr("Turn {n}: {what}", n=turn, what=plain_text(step_line(replay.steps[index], names)))
        options.append((str(index), label[:100]))
    return options


def nets_line(result: HandResult, name: Callable[[int], str]) -> str:
    """Every player's net for the hand, biggest win first: "Net for the hand: Ana +4, Bo -4, Cy 0." (``name``: the
    names for Discord text or for an image's alt text)."""
    order = {user: i for i, user in enumerate(result.players)}
    rows = sorted(result.nets, key=lambda kv: (-kv[1], order[kv[0]]))
    return tr("Net for the hand: {nets}.", nets=", ".join(f"{name(user)} {signed(n)}" for user, n in rows))


def step_text(replay: HandReplay, index: int, names: Names) -> str:
    """PRIVATE (the requester's step-through): the step's line, the board's text twin and the requester's cards;
    the last step of a finished hand adds every player's net for the hand."""
    step = replay.steps[index]
    parts = [f"**{step_title(replay, index)}**", step_line(step, names)]
    if replay.result is not None and index == len(replay.steps) - 1:
        parts.append(nets_line(replay.result, lambda user: name_of(names, user)))
    if step.board.drawn is not None and step.board.phase is Phase.PLAYING:
        parts.append(tr("Card up: {card}.", card=step.board.drawn.pretty))
    hand = own_hand_snapshot(replay, index)
    if hand is not None:
        parts.append(hand_text(hand))  # "Your hand, 10 cards by suit: …" as in My hand (the e2e privacy check reads it)
    head = "\n".join(parts)[:1900]
    twin = table_text(board_snapshot(replay, index, names))  # the image's names, as typed: in a code block
    return head + "\n" + code_block(twin[: max(0, 1990 - len(head) - 10)])


def share_caption(replay: HandReplay, names: Names, sharer: int) -> str:
    """PUBLIC: the message carrying the shared animation."""
    return tr(
        "{name} shared a replay: {summary}.", name=name_of(names, sharer), summary=summary_line(replay.summary, names)
    )


def share_alt_text(replay: HandReplay, names: Names) -> str:
    """PUBLIC: the shared animation's alt text: the text twin of its last frame (the end-of-hand image), or, for a
    hand nobody won, its end and every player's net."""
    outcome = outcome_of(replay, names)
    if outcome is not None:
        return outcome_text(outcome)
    last = replay.steps[-1] if replay.steps else None
    lines = [plain_text(step_line(last, names))] if last is not None else []
    if replay.result is not None:
        lines.append(nets_line(replay.result, lambda user: image_name_of(names, user)))
    return "\n".join(lines)


def _status(view: PlayerView | None, seat: Seat) -> SeatStatus:
    if view is None:
        return SeatStatus.AWAY if seat.away else SeatStatus.WAITING
    return status_pill(view.status, flat=sum(len(m.cards) for m in view.melds) >= 10 and view.hand_count == 0)


def step_board(
    step: ReplayStep, names: Names, *, title: str, notes: Sequence[str] = (), four_color: bool = False
) -> TableSnapshot:
    """The public board after ``step`` (melds, counts, the face-up card, stacks, tops; never a hidden card)."""
    board = step.board
    views = {v.seat: v for v in board.players}
    over = board.phase in (None, Phase.OVER) or step.ended is not None
    seats: list[SeatSnapshot] = []
    index_of: dict[int, int] = {}
    for i in range(len(step.seats_after)):
        seat = _seat_at(step, i)
        if seat is None:
            continue
        view = views.get(i)
        index_of[i] = len(seats)
        seats.append(
            SeatSnapshot(
                name=image_name(names, seat.player_id)[0],
                computer=seat.player_id < 0,
                chips=seat.stack,
                status=_status(view, seat),
                doubles=seat.doubles,
                is_turn=not over and board.to_act == i,
                melds=meld_snapshots(view.melds, board.rules) if view is not None else (),
                hand_count=view.hand_count if view is not None else 0,
            )
        )
    to_act = None if over or board.to_act is None else index_of.get(board.to_act)
    in_hand = not over  # between hands (and at the step that ends one) the live board shows no piles
    in_play = board.drawn if in_hand and board.step in (Step.DRAWN, Step.MUST_USE) else None
    source = step.in_play_source
    how: InPlayHow = "taken" if source is DrawSource.OPTION else "forced" if source is DrawSource.FORCED else "plucked"
    by = ""
    if in_play is not None and board.turn_seat is not None:
        holder = _seat_at(step, board.turn_seat)
        by = (
            image_name(names, holder.player_id)[0]
            if holder is not None
            else tr("seat {number}", number=board.turn_seat + 1)
        )
    discard = board.muck_top if in_hand else None  # as the live board: the top of the pile, the option or not
    return TableSnapshot(
        title=title[:80] or tr("Pan table"),
        hand_no=board.hand_no,
        seats=tuple(seats),
        to_act=to_act,
        in_hand=in_hand,
        in_play=in_play,
        in_play_by=by,
        in_play_how=how,
        discard=discard,
        discard_count=step.muck_count if in_hand else 0,
        discard_is_option=board.option is not None,
        stock_count=board.stock_count,
        singles_tops=board.singles_tops,
        doubles_tops=board.doubles_tops,
        notes=tuple(plain_text(n) for n in notes[-3:]),
        four_color=four_color,
        lang=current(),
    )


def board_snapshot(replay: HandReplay, index: int, names: Names, *, four_color: bool = False) -> TableSnapshot:
    """The public board of one step, its line as the note."""
    step = replay.steps[index]
    return step_board(step, names, title=replay_title(replay), notes=(step_line(step, names),), four_color=four_color)


def own_hand_snapshot(
    replay: HandReplay, index: int, *, sort: str = "suit", four_color: bool = False
) -> HandSnapshot | None:
    """PRIVATE: the requester's own cards at this step (None when the requester was not dealt into the hand)."""
    if replay.viewer_seat is None:
        return None
    return HandSnapshot(
        cards=replay.steps[index].own,
        sort="rank" if sort == "rank" else "suit",
        four_color=four_color,
        lang=current(),
    )


def outcome_of(replay: HandReplay, names: Names, *, four_color: bool = False) -> OutcomeSnapshot | None:
    """The end-of-hand image (the winner's board, what he collected, every player's net), when the hand ended with a
    winner: the same snapshot the table posted when the hand ended, its chip figures from the hand's result."""
    last = replay.steps[-1] if replay.steps else None
    result = replay.result
    if last is None or last.ended is None or result is None:
        return None
    seat = last.ended.winner
    view = next((v for v in last.board.players if v.seat == seat), None)
    went = next((e for e in last.events if isinstance(e, WentOut)), None)
    return outcome_snapshot(
        result,
        names,
        melds=view.melds if view is not None else (),
        rules=last.board.rules,
        went=went,
        title=replay_title(replay),
        four_color=four_color,
    )


def replay_title(replay: HandReplay) -> str:
    return tr("Replay · {title}", title=replay.title) if replay.title else tr("Replay")


def watch_announcement(player: str, watcher: str) -> str:
    """PUBLIC, at the table: a player lets one member see their cards (no card is named)."""
    return tr(
        "👁 **{player}** lets {watcher} see their cards for this hand. While it lasts {watcher} cannot sit at this "
        "table; it ends when the hand ends or {player} stops sharing.",
        player=player,
        watcher=watcher,
    )


def watch_stopped(player: str, watcher: str) -> str:
    """PUBLIC, at the table: the player stopped sharing."""
    return tr("👁 {player} no longer shares their cards with {watcher}.", player=player, watcher=watcher)


def watch_granted(watcher: str) -> str:
    """PRIVATE to the player: the answer to /pan settings share_hand."""
    return tr(
        "{watcher} can see your cards until this hand ends. `/pan settings stop_sharing:True` ends it sooner.",
        watcher=watcher,
    )


def watched_hand_text(player: str, snapshot: HandSnapshot) -> str:
    """PRIVATE to the watcher: the shared hand, read-only ("Ana's hand, 10 cards by suit: …")."""
    text = hand_text(snapshot)
    yours = tr("Your hand")
    if text.startswith(yours):
        text = tr("{player}'s hand", player=player) + text[len(yours) :]
    return text + "\n" + tr("Shared with you by {player} for this hand (read-only).", player=player)


# --------------------------------------------------------------------------------------------- transcripts


def _clock(when: float | None, *, date: bool = False) -> str:
    if when is None:
        return "--:--:--"
    moment = datetime.datetime.fromtimestamp(when, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC" if date else "%H:%M:%S")


def transcript_intro(title: str, viewer: str, *, moderator: bool) -> str:
    """The readable transcript's first lines: whose view it is, and what it holds."""
    if moderator:
        what = tr("every hand's whole deal where a floor ruling may see it (the machine notation is attached too)")
    else:
        what = tr("the public play and your own cards; a hand every player agreed to reveal (/pan reveal) shows whole")
    title = plain_text(title) or tr("Pan table")
    said = tr(
        "{title} — hand history as {viewer} may see it: {what}.", title=title, viewer=plain_text(viewer), what=what
    )
    return said + "\n\n"


def transcript_section(record: HandRecord, names: Names, viewer_id: int) -> str:
    """One hand of the readable transcript (names, cards with suit symbols, times in UTC, chips): its public play,
    the viewer's own cards, and every player's dealt cards only when the viewer may see the whole deal."""
    replay = record.replay
    summary = replay.summary
    dealt = ", ".join(image_name_of(names, p) for p in summary.dealt)
    first = record.times[0] if record.times else None
    lines = [
        tr("Hand {n} · {when} · dealt to {players}", n=replay.hand_no, when=_clock(first, date=True), players=dealt)
    ]
    pad = " " * 10
    for step, when in zip(replay.steps, record.times, strict=False):
        lines.append(f"  {_clock(when)}  {plain_text(step_line(step, names))}")
        if step.index == 0:
            if record.dealt is not None:
                for player, cards in record.dealt.items():
                    dealt_line = tr(
                        "{name} was dealt {cards}", name=image_name_of(names, player), cards=cards_text(cards)
                    )
                    lines.append(f"  {pad}{dealt_line}")
            elif replay.viewer_seat is not None:
                lines.append(f"  {pad}" + tr("Your cards: {cards}", cards=cards_text(step.own)))
    last = replay.steps[-1] if replay.steps else None
    if last is not None and replay.viewer_seat is not None and record.dealt is None and last.own:
        lines.append(f"  {pad}" + tr("Your cards now: {cards}", cards=cards_text(last.own)))
    lines.append("  " + tr("Result: {summary}", summary=plain_text(summary_line(summary, names))))
    return "\n".join(lines) + "\n\n"


def history_files_note(*, machine: bool, hands: Sequence[int]) -> str:
    """PRIVATE: under /pan history transcript:True, what the attached files are."""
    note = "\n" + tr("Attached: the hand history in words (public play and your own cards).")
    if machine:
        note += " " + tr("And the machine notation of the table (for replays and floor rulings).")
    elif hands:
        listed = ", ".join(str(n) for n in hands)
        note += " " + trn(
            "And the machine notation of hand {hands}, revealed by its players.",
            "And the machine notation of hands {hands}, revealed by its players.",
            len(hands),
            hands=listed,
        )
    return note


def reveal_answer(hand_no: int, waiting: Sequence[str]) -> str:
    """PRIVATE: the answer to /pan reveal."""
    if waiting:
        return tr(
            "You agree to reveal hand {n} to its players. It stays hidden until every player of it agrees; "
            "waiting for {players} (`/pan reveal hand:{n}`).",
            n=hand_no,
            players=", ".join(waiting),
        )
    return tr(
        "Every player of hand {n} agreed: its whole deal is in `/pan history transcript:True` for each of them.",
        n=hand_no,
    )


def reveal_announcement(who: str, hand_no: int, waiting: Sequence[str]) -> str:
    """PUBLIC, at the table: a player agrees to reveal a finished hand (no card is named)."""
    if waiting:
        return tr(
            "{name} agrees to reveal hand {n}'s whole deal to its players; waiting for {players} "
            "(`/pan reveal hand:{n}`).",
            name=who,
            n=hand_no,
            players=", ".join(waiting),
        )
    return tr(
        "{name} agrees to reveal hand {n}: every player of it agreed, so they can now see its whole deal.",
        name=who,
        n=hand_no,
    )
