"""The replay's images: a step's board and the requester's hand, and the shared animation (no wording here).

A step renders like a live board (the public board snapshot from the presenters) plus, for a requester who was
dealt in, their own hand; the animation is the public board turn by turn (`renderer.animation`, a GIF), ending on
the outcome image. CPU work: the cog runs these on the render scheduler (URGENT for a step, BACKGROUND for a share).
"""

from __future__ import annotations

from PIL import Image

from pancog.adapter.presenters.common import Names
from pancog.adapter.presenters.replay import (
    board_snapshot,
    outcome_of,
    own_hand_snapshot,
    replay_title,
    step_board,
    step_line,
)
from pancog.game import i18n
from pancog.services.replay import HandReplay
from renderer import HandSnapshot, TableSnapshot, render_hand, render_outcome, render_table, to_png
from renderer.animation import to_gif

__all__ = [
    "MAX_FRAMES",
    "MAX_GIF_BYTES",
    "animation_job",
    "frame_groups",
    "render_step",
    "render_step_pngs",
    "share_animation",
    "step_snapshots",
]

MAX_FRAMES = 48
"""Frames in a shared animation at most: a longer hand coalesces several steps into a frame (the frame shows the
board after the last of them and their lines as notes)."""
MAX_GIF_BYTES = 8_000_000  # well under Discord's 10 MiB upload limit; fewer frames are tried above it
FRAME_MS = 900
FIRST_MS = 1800
LAST_MS = 6000


def step_snapshots(
    replay: HandReplay, index: int, names: Names, *, sort: str = "suit", four_color: bool = False
) -> tuple[TableSnapshot, HandSnapshot | None]:
    """The public board at a step, and (PRIVATE) the requester's own cards (None for a stranger): cheap, built on
    the event loop so the render job carries only these small values (picklable, for process workers)."""
    board = board_snapshot(replay, index, names, four_color=four_color)
    return board, own_hand_snapshot(replay, index, sort=sort, four_color=four_color)


def render_step_pngs(snapshots: tuple[TableSnapshot, HandSnapshot | None]) -> tuple[bytes, bytes | None]:
    """PNGs of a step's board and of the requester's hand (a module-level function: a render job)."""
    board, hand = snapshots
    return to_png(render_table(board)), (to_png(render_hand(hand)) if hand is not None else None)


def render_step(
    replay: HandReplay, index: int, names: Names, *, sort: str = "suit", four_color: bool = False
) -> tuple[bytes, bytes | None]:
    """PNG of the public board at a step, and (PRIVATE) of the requester's own cards (None for a stranger)."""
    return render_step_pngs(step_snapshots(replay, index, names, sort=sort, four_color=four_color))


def animation_job(job: tuple[HandReplay, dict[int, str], str]) -> bytes:
    """:func:`share_animation` of ``(replay, names)`` in the language ``lang`` (a module-level function with a
    picklable input: a render job, in thread or process workers, which do not share the task's language)."""
    replay, names, lang = job
    with i18n.speaking(lang):
        return share_animation(replay, names)


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
                    title=replay_title(replay),
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
