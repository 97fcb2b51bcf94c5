"""How a hand replay is shown: the words, the renderer snapshots, the rendered step and the shared animation.

Presenter-like (no discord import): replay wording lives here, not in ``pancog/presenters.py``, while the adapter
is being restructured; when the presenters move into ``pancog/adapter/presenters.py`` the wording functions here
(``step_line``, ``history_text``, ``watch_*``…) are meant to join them.

Everything here works from a :class:`pancog.replay.HandReplay`, whose steps hold only what the viewer may see (the
public board and the viewer's own cards), so nothing here can show another player's hidden cards. Functions whose
output contains the viewer's own cards say PRIVATE; the rest are fit for the channel.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from pancog.game.cards import Card
from pancog.game.engine import PlayerView
from pancog.game.events import CardPlucked, OptionTaken
from pancog.game.state import HandState, Phase, PlayerHand, PlayerStatus, Seat, TableState
from pancog.presenters import (
    Names,
    chips,
    describe_events,
    meld_snapshots,
    name_of,
    outcome_snapshot,
)
from pancog.replay import HandReplay, HandSummary, ReplayStep
from renderer import (
    HandSnapshot,
    OutcomeSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
    hand_text,
    render_hand,
    render_outcome,
    render_table,
    table_text,
    to_png,
)
from renderer.animation import to_gif

MAX_FRAMES = 48
"""Frames in a shared animation at most: a longer hand coalesces several steps into a frame (the frame shows the
board after the last of them and their lines as notes)."""
MAX_GIF_BYTES = 8_000_000  # well under Discord's 10 MiB upload limit; fewer frames are tried above it
MAX_JUMPS = 25  # a select offers at most 25 options
SHARED = "The replay is posted in the channel."
FRAME_MS = 900
FIRST_MS = 1800
LAST_MS = 6000

# --------------------------------------------------------------------------------------------- public projection


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


# --------------------------------------------------------------------------------------------- words


def _plain(text: str) -> str:
    return text.replace("**", "")


def step_line(step: ReplayStep, names: Names) -> str:
    """What happened at this step, in one line (public: the viewer's own deal is not described)."""
    before, after = _public_states(step)
    lines = describe_events(before, after, names, step.events)
    if lines:
        return " ".join(lines)
    seat = _seat_at(step, step.actor) if step.actor is not None else None
    who = name_of(names, seat.player_id) if seat is not None else "The table"
    return f"{who} made a move that shows nothing on the board."


def step_title(replay: HandReplay, index: int) -> str:
    return f"Hand {replay.hand_no} · step {index + 1} of {len(replay.steps)}"


def summary_line(summary: HandSummary, names: Names) -> str:
    """One hand in the history: its number, its result and its length."""
    head = f"Hand {summary.hand_no}"
    ended = summary.ended
    if ended is None:
        result = "in progress"
    elif summary.splitter_ids:
        result = " and ".join(name_of(names, p) for p in summary.splitter_ids) + " split the tops"
    elif ended.reason.value == "nobody":
        result = "nobody played"
    elif ended.reason.value == "void":
        result = "void (the stock ran out)"
    elif summary.winner_id is not None:
        verb = "went out" if ended.reason.value == "out" else "won"
        result = f"{name_of(names, summary.winner_id)} {verb}"
        if summary.winner_chips:
            result += f" (+{chips(summary.winner_chips)})"
    else:
        result = "over"
    return f"{head} — {result} · {len(summary.dealt)} players, {summary.actions} actions"


def history_text(summaries: Sequence[HandSummary], names: Names) -> str:
    """PRIVATE reply to /pan history: recent hands, newest first, each with a Replay button below."""
    if not summaries:
        return "No hand has been dealt at this table yet."
    lines = ["**Recent hands at this table** (press Replay to step through one)"]
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
            label = "The deal"
        elif index == last and replay.summary.finished:
            label = "The end: " + summary_line(replay.summary, names)
        else:
            turn = turns.index(index) + 1 if index in turns else index
            label = f"Turn {turn}: " + _plain(step_line(replay.steps[index], names))
        options.append((str(index), label[:100]))
    return options


def step_text(replay: HandReplay, index: int, names: Names) -> str:
    """PRIVATE (the requester's step-through): the step's line, the board's text twin and the requester's cards."""
    step = replay.steps[index]
    parts = [f"**{step_title(replay, index)}**", step_line(step, names)]
    if step.board.drawn is not None and step.board.phase is Phase.PLAYING:
        parts.append(f"Card up: {step.board.drawn.pretty}.")
    hand = own_hand_snapshot(replay, index)
    if hand is not None:
        parts.append(hand_text(hand))  # "Your hand, 10 cards by suit: …" as in My hand (the e2e privacy check reads it)
    parts.append(table_text(board_snapshot(replay, index, names)))
    return "\n".join(parts)[:2000]


def share_caption(replay: HandReplay, names: Names, sharer: int) -> str:
    """PUBLIC: the message carrying the shared animation."""
    return f"{name_of(names, sharer)} shared a replay: {summary_line(replay.summary, names)}."


# --------------------------------------------------------------------------------------------- snapshots


def _status(view: PlayerView | None, seat: Seat) -> SeatStatus:
    if view is None:
        return SeatStatus.AWAY if seat.away else SeatStatus.WAITING
    match view.status:
        case PlayerStatus.IN:
            flat = sum(len(m.cards) for m in view.melds) >= 10 and view.hand_count == 0
            return SeatStatus.FLAT if flat else SeatStatus.IN
        case PlayerStatus.RETIRED:
            return SeatStatus.ON_TOP
        case PlayerStatus.FOULED | PlayerStatus.QUIT:
            return SeatStatus.FOULED
        case PlayerStatus.BUSTED:
            return SeatStatus.BUSTED
        case _:
            return SeatStatus.WAITING


def _image_name(names: Names, player_id: int) -> str:
    return name_of(names, player_id).replace("🤖", "⚙")  # the image font has ⚙, not 🤖 (as on the live board)


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
                name=_image_name(names, seat.player_id),
                chips=seat.stack,
                status=_status(view, seat),
                doubles=seat.doubles,
                is_turn=not over and board.to_act == i,
                melds=meld_snapshots(view.melds, board.rules) if view is not None else (),
                hand_count=view.hand_count if view is not None else 0,
            )
        )
    top: Card | None = board.option if board.option is not None else board.muck_top
    to_act = None if over or board.to_act is None else index_of.get(board.to_act)
    return TableSnapshot(
        title=title[:80] or "Pan table",
        hand_no=board.hand_no,
        seats=tuple(seats),
        to_act=to_act,
        top_card=top,
        top_is_option=board.option is not None,
        stock_count=board.stock_count,
        singles_tops=board.singles_tops,
        doubles_tops=board.doubles_tops,
        notes=tuple(_plain(n) for n in notes[-3:]),
        four_color=four_color,
    )


def board_snapshot(replay: HandReplay, index: int, names: Names, *, four_color: bool = False) -> TableSnapshot:
    """The public board of one step, its line as the note."""
    step = replay.steps[index]
    return step_board(step, names, title=_title(replay), notes=(step_line(step, names),), four_color=four_color)


def own_hand_snapshot(
    replay: HandReplay, index: int, *, sort: str = "suit", four_color: bool = False
) -> HandSnapshot | None:
    """PRIVATE: the requester's own cards at this step (None when the requester was not dealt into the hand)."""
    if replay.viewer_seat is None:
        return None
    return HandSnapshot(cards=replay.steps[index].own, sort="rank" if sort == "rank" else "suit", four_color=four_color)


def outcome_of(replay: HandReplay, names: Names, *, four_color: bool = False) -> OutcomeSnapshot | None:
    """The end-of-hand summary (the winner's board and pays), when the hand ended with a winner."""
    last = replay.steps[-1] if replay.steps else None
    if last is None or last.ended is None:
        return None
    before, after = _public_states(last)
    return outcome_snapshot(before, after, names, last.events, title=_title(replay), four_color=four_color)


def _title(replay: HandReplay) -> str:
    return f"Replay · {replay.title}" if replay.title else "Replay"


# --------------------------------------------------------------------------------------------- images


def render_step(
    replay: HandReplay, index: int, names: Names, *, sort: str = "suit", four_color: bool = False
) -> tuple[bytes, bytes | None]:
    """PNG of the public board at a step, and (PRIVATE) of the requester's own cards (None for a stranger).

    CPU work: the adapter runs it through the render scheduler, like a live board.
    """
    board = to_png(render_table(board_snapshot(replay, index, names, four_color=four_color)))
    hand = own_hand_snapshot(replay, index, sort=sort, four_color=four_color)
    return board, (to_png(render_hand(hand)) if hand is not None else None)


def frame_groups(steps: int, max_frames: int) -> list[range]:
    """Consecutive step ranges, one per frame: every step alone when they fit, else evenly coalesced; the last step
    (the end of the hand) always has a frame of its own."""
    if steps <= 0:
        return []
    if steps <= max_frames:
        return [range(i, i + 1) for i in range(steps)]
    body = steps - 1
    slots = max(1, max_frames - 1)
    groups = [range(body * k // slots, body * (k + 1) // slots) for k in range(slots)]
    return [g for g in groups if len(g)] + [range(steps - 1, steps)]


def share_animation(
    replay: HandReplay,
    names: Names,
    *,
    max_frames: int = MAX_FRAMES,
    max_bytes: int = MAX_GIF_BYTES,
    four_color: bool = False,
) -> bytes:
    """PUBLIC: the hand as an animated GIF of the public board, turn by turn, ending on the final outcome.

    Never shows anyone's hidden cards (the steps hold none; the requester's own cards are not drawn either). A long
    hand coalesces steps (at most ``max_frames`` frames); above ``max_bytes`` the frames are halved until it fits.

    Raises:
        ValueError: the replay has no steps.
    """
    if not replay.steps:
        raise ValueError("a replay without steps")
    lines = [step_line(s, names) for s in replay.steps]
    outcome = outcome_of(replay, names, four_color=four_color)
    rendered: dict[tuple[int, int], Image.Image] = {}  # (first, last step) -> frame, reused when halving
    frames = max_frames
    while True:
        groups = frame_groups(len(replay.steps), frames)
        images: list[Image.Image] = []
        for group in groups:
            last = group[-1]
            key = (group[0], last)
            image = rendered.get(key)
            if image is None:
                snap = step_board(
                    replay.steps[last],
                    names,
                    title=_title(replay),
                    notes=lines[max(group[0], last - 2) : last + 1],
                    four_color=four_color,
                )
                image = render_table(snap)
                rendered[key] = image
            images.append(image)
        durations = [FIRST_MS] + [FRAME_MS] * (len(images) - 1)
        if outcome is not None:
            images.append(render_outcome(outcome))
            durations.append(LAST_MS)
        else:
            durations[-1] = LAST_MS
        data = to_gif(images, durations)
        if len(data) <= max_bytes or frames <= 2:
            return data
        frames = max(2, frames // 2)


# --------------------------------------------------------------------------------------------- watching with consent


def watch_announcement(player: str, watcher: str) -> str:
    """PUBLIC, at the table: a player lets one member see their cards (no card is named)."""
    return (
        f"👁 **{player}** lets {watcher} see their cards for this hand. While it lasts {watcher} cannot sit at this "
        f"table; it ends when the hand ends or {player} stops sharing."
    )


def watch_stopped(player: str, watcher: str) -> str:
    """PUBLIC, at the table: the player stopped sharing."""
    return f"👁 {player} no longer shares their cards with {watcher}."


def watch_granted(watcher: str) -> str:
    """PRIVATE to the player: the answer to /pan settings share_hand."""
    return f"{watcher} can see your cards until this hand ends. `/pan settings stop_sharing:True` ends it sooner."


def watched_hand_text(player: str, snapshot: HandSnapshot) -> str:
    """PRIVATE to the watcher: the shared hand, read-only ("Ana's hand, 10 cards by suit: …")."""
    text = hand_text(snapshot)
    if text.startswith("Your hand"):
        text = f"{player}'s hand" + text[len("Your hand") :]
    return f"{text}\nShared with you by {player} for this hand (read-only)."
