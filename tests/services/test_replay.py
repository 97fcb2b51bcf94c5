"""Hand replays and history (pancog/services/replay.py, pancog/adapter/presenters/replay.py): steps, wording,
images, and the privacy proof.

The privacy proof replays whole recorded hands for every seat and for a stranger and checks, per step, every card
the replay shows — the board snapshot, the viewer's hand, the step's text and the shared animation's frames —
against the truth recomputed from the engine: only cards public at that step, or the viewer's own.
"""

from __future__ import annotations

import io
import random
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import pytest
from PIL import Image

from pancog.adapter import replay_images
from pancog.adapter.presenters.replay import (
    MAX_JUMPS,
    board_snapshot,
    jump_options,
    outcome_of,
    own_hand_snapshot,
    replay_history_text,
    step_line,
    step_text,
    summary_line,
)
from pancog.adapter.presenters.table import table_snapshot
from pancog.game import engine
from pancog.game.actions import Action, Rebuy
from pancog.game.cards import Card, parse_card
from pancog.game.events import (
    CardPlucked,
    Discarded,
    Event,
    Forced,
    HandEnded,
    Melded,
    OptionTaken,
    PluckVoided,
    UpcardTurned,
)
from pancog.game.state import HandState, TableState
from pancog.infra.renderq import RenderQueue
from pancog.infra.renderq.workers import processes_available
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.replay import HandNotFound, HandReplay, ReplayService, TableLog, build_replay
from pancog.services.store import TableStore
from pancog.services.tables import NoTableHere, TableConfig, TableService, seeded_deals
from renderer import TableSnapshot

GUILD = 900
TABLE = 901
PLAYERS = (31, 32, 33, 34)
STRANGER = 99
NAMES = {31: "Ana", 32: "Bo", 33: "Cy", 34: "Di", 99: "Zed"}


class Env:
    def __init__(self, storage: SqliteStorage) -> None:
        self.storage = storage
        self.ledger = ChipLedger(storage)
        self.store = TableStore(storage)
        self.tables = TableService(self.ledger, self.store, dealer=seeded_deals(20))
        self.replays = ReplayService(self.store)


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        yield Env(storage)


def choose(state: TableState, rng: random.Random) -> Action:
    """A legal move for the seat to act: mostly the best-paying play, sometimes any."""
    seat = engine.to_act(state)
    assert seat is not None
    menu = [a for a, _ in engine.plays(state, seat)]
    return menu[0] if rng.random() < 0.6 else rng.choice(menu)


async def open_table(env: Env, players: Iterable[int] = PLAYERS, table: int = TABLE) -> None:
    players = tuple(players)
    await env.tables.open_table(
        table, guild_id=GUILD, channel_id=table, host_id=players[0], config=TableConfig.build(title="Felt")
    )
    for user in players:
        await env.tables.join(table, user)


async def play(env: Env, *, hands: int, then: int = 0, seed: int = 1, table: int = TABLE) -> None:
    """Finish ``hands`` hands (dealing as needed), then play ``then`` actions of the next one."""
    rng = random.Random(seed)
    finished = extra = 0
    while finished < hands or extra < then:
        state = env.tables.get(table).state
        if state.hand is None:
            for i, seat in enumerate(state.seats):
                if seat is not None and seat.stack < 20:
                    await env.tables.system_act(table, Rebuy(seat=i, amount=60))
            await env.tables.start_hand(table, env.tables.get(table).player_ids()[0])
            continue
        applied = await env.tables.system_act(table, choose(state, rng))
        if any(isinstance(e, HandEnded) for e in applied.events):
            finished += 1
        elif finished >= hands:
            extra += 1


# --------------------------------------------------------------------------------------------- the truth


def _truth(log: TableLog, hand_no: int) -> list[tuple[TableState, tuple[Event, ...]]]:
    """Every (state after, events) of the hand, recomputed with the engine alone."""
    hand = log.find(hand_no)
    state = hand.start
    out = []
    for _seq, action in hand.actions:
        t = engine.apply(state, action)
        out.append((t.state, t.events))
        state = t.state
    return out


def _shown_hand(state: TableState) -> HandState | None:
    """The hand on display: in progress, or just finished."""
    return state.hand if state.hand is not None else state.last_hand


def public_board(state: TableState) -> Counter[Card]:
    """The cards anyone may see on the board now: every meld, the option card or top discard, the face-up card."""
    hand = _shown_hand(state)
    seen: Counter[Card] = Counter()
    if hand is None:
        return seen
    for player in hand.players:
        if player is not None:
            for meld in player.melds:
                seen.update(meld.cards)
    if hand.option is not None:
        seen[hand.option] += 1
    elif hand.muck:
        seen[hand.muck[-1]] += 1
    if hand.turn is not None and hand.turn.drawn is not None:
        seen[hand.turn.drawn] += 1
    return seen


def public_event_cards(events: Iterable[Event]) -> Counter[Card]:
    """Cards named by this step's public events (the engine's own visibility: ``private_to is None``)."""
    seen: Counter[Card] = Counter()
    for e in events:
        if e.private_to is not None:
            continue
        if isinstance(e, CardPlucked | OptionTaken | Discarded | Forced | PluckVoided | UpcardTurned):
            seen[e.card] += 1
        elif isinstance(e, Melded):
            seen.update(e.cards)
            if e.drawn is not None:
                seen[e.drawn] += 1
    return seen


def own_cards(state: TableState, seat: int | None) -> tuple[Card, ...]:
    hand = _shown_hand(state)
    if seat is None or hand is None or hand.players[seat] is None:
        return ()
    player = hand.players[seat]
    assert player is not None
    return player.hand


def _other_hands(state: TableState, viewer_seat: int | None) -> list[tuple[int, tuple[Card, ...]]]:
    hand = _shown_hand(state)
    if hand is None:
        return []
    return [(p.seat, p.hand) for p in hand.players if p is not None and p.seat != viewer_seat and len(p.hand) > 1]


def snapshot_cards(snap: TableSnapshot) -> Counter[Card]:
    seen: Counter[Card] = Counter()
    for seat in snap.seats:
        for meld in seat.melds:
            seen.update(meld.cards)
    for card in (snap.in_play, snap.discard):
        if card is not None:
            seen[card] += 1
    return seen


_RANKS = "A234567JQK"
CARD_TOKEN = re.compile(rf"(?<![\w])([{_RANKS}])([CDHS♣♦♥♠])(?![\w])")
_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def text_cards(text: str) -> Counter[Card]:
    """Every card a text names, in notation (5H) or with a suit symbol (5♥)."""
    return Counter(parse_card(rank + _SYMBOL.get(suit, suit)) for rank, suit in CARD_TOKEN.findall(text))


def _within(shown: Counter[Card], allowed: Counter[Card]) -> list[str]:
    """Cards shown more often than allowed (multisets)."""
    return sorted(str(c) for c, n in shown.items() if n > allowed[c])


def check_replay(log: TableLog, replay: HandReplay, viewer_seat: int | None) -> int:
    """Assert the privacy of every step; returns how many of the viewer's own cards were shown (not vacuous)."""
    truth = _truth(log, replay.hand_no)
    assert len(truth) == len(replay.steps)
    own_shown = 0
    for step, (state, events) in zip(replay.steps, truth, strict=True):
        board = public_board(state)
        own = Counter(own_cards(state, viewer_seat))
        snap = board_snapshot(replay, step.index, NAMES)
        live = table_snapshot(state, NAMES, title="live")
        assert snapshot_cards(snap) == snapshot_cards(live), f"step {step.index}: the board image is not the board"
        assert not snapshot_cards(snap) - board, f"step {step.index}: the board image shows a hidden card"
        assert (snap.in_play, snap.discard, snap.discard_count) == (live.in_play, live.discard, live.discard_count)
        hand = own_hand_snapshot(replay, step.index)
        if viewer_seat is None:
            assert hand is None and step.own == ()
        else:
            assert hand is not None and Counter(hand.cards) == own, f"step {step.index}: not the viewer's hand"
            own_shown += len(hand.cards)
        text = step_text(replay, step.index, NAMES)
        assert ("Your hand" in text) == (viewer_seat is not None)
        # Cards of one name are indistinguishable, so a text may name a card if some copy of it is public or the
        # viewer's own; and no other player's hand may appear as a listing (the way a leak would show).
        leaked = sorted(str(c) for c in set(text_cards(text)) - set(board + public_event_cards(events) + own))
        assert not leaked, f"step {step.index} ({viewer_seat=}): the text names cards that were hidden: {leaked}"
        for seat, cards in _other_hands(state, viewer_seat):
            for listing in (" ".join(str(c) for c in cards), " ".join(c.pretty for c in cards)):
                assert listing not in text, f"step {step.index}: seat {seat}'s hand in the text"
        assert all(getattr(e, "seed", None) is None for e in step.events), "the deal's seed would reveal the shoe"
        for e in step.events:
            assert e.private_to is None or e.private_to == viewer_seat, f"step {step.index}: someone else's event"
    return own_shown


# --------------------------------------------------------------------------------------------- tests


async def test_replay_privacy_every_seat_and_a_stranger(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole recorded hands, replayed for every seat and a stranger: per step, only public cards or the viewer's own
    (board image, hand image, text, animation frames)."""
    await open_table(env)
    await play(env, hands=3)
    log = await env.replays.log(TABLE)
    summaries = await env.replays.history(TABLE)
    assert [s.hand_no for s in summaries] == [1, 2, 3]
    frames: list[TableSnapshot] = []
    real_render = replay_images.render_table

    def spy(snap: TableSnapshot) -> Image.Image:
        frames.append(snap)
        return real_render(snap)

    monkeypatch.setattr(replay_images, "render_table", spy)
    for summary in summaries:
        dealt = summary.dealt
        for viewer in (*PLAYERS, STRANGER):
            replay = build_replay(log, summary.hand_no, viewer)
            expected_seat = None
            if viewer in dealt:
                start = log.find(summary.hand_no).start
                expected_seat = next(i for i, s in enumerate(start.seats) if s is not None and s.player_id == viewer)
            assert replay.viewer_seat == expected_seat
            shown = check_replay(log, replay, replay.viewer_seat)
            assert (shown > 0) == (viewer in dealt)
        frames.clear()
        gif = replay_images.share_animation(build_replay(log, summary.hand_no, STRANGER), NAMES)
        boards = [public_board(state) for state, _ in _truth(log, summary.hand_no)]
        assert frames, "the animation drew no board"
        for snap in frames:
            cards = snapshot_cards(snap)
            assert any(not _within(cards, b) for b in boards), f"a frame shows cards of no public board: {cards}"
        assert gif[:6] == b"GIF89a"


async def test_replay_steps_lines_and_results(env: Env) -> None:
    """A step per action, the deal first; each step has a line; the last one says how the hand ended."""
    await open_table(env)
    await play(env, hands=2)
    log = await env.replays.log(TABLE)
    replay = await env.replays.replay(TABLE, PLAYERS[1], 2)
    summary = replay.summary
    assert summary.finished and summary.ended is not None
    assert len(replay.steps) == summary.actions == summary.last_seq - summary.first_seq + 1
    assert [s.seq for s in replay.steps] == list(range(summary.first_seq, summary.last_seq + 1))
    lines = [step_line(s, NAMES) for s in replay.steps]
    assert lines[0].startswith("Hand 2 dealt to 4 players")
    assert all(lines)
    assert "Hand 2 is" in lines[-1]
    end = summary.ended
    if end.winner is not None:
        start = log.find(2).start
        seat = start.seats[end.winner]
        assert seat is not None and summary.winner_id == seat.player_id
        assert NAMES[seat.player_id] in summary_line(summary, NAMES)


async def test_replay_default_hand_is_the_viewers_last(env: Env) -> None:
    """No hand number: the requester's last hand here (the table's last one for a stranger)."""
    await open_table(env)
    await play(env, hands=2, then=3)
    replay = await env.replays.replay(TABLE, PLAYERS[0])
    assert replay.hand_no == 3 and not replay.summary.finished
    stranger = await env.replays.replay(TABLE, STRANGER)
    assert stranger.hand_no == 3 and stranger.viewer_seat is None
    check_replay(await env.replays.log(TABLE), replay, replay.viewer_seat)


async def test_replay_bad_hand_and_table_are_refused(env: Env) -> None:
    """Unknown hand or table: a PanError with its code; an empty table has no hand yet."""
    with pytest.raises(NoTableHere):
        await env.replays.replay(12345, PLAYERS[0])
    await open_table(env)
    with pytest.raises(HandNotFound) as none_yet:
        await env.replays.replay(TABLE, PLAYERS[0])
    assert none_yet.value.hand_no is None
    await play(env, hands=1)
    with pytest.raises(HandNotFound) as missing:
        await env.replays.replay(TABLE, PLAYERS[0], 7)
    assert missing.value.code == "hand_not_found"


async def test_replay_history_follows_the_log(env: Env) -> None:
    """The cached log reads only the new tail: later hands appear, an in-progress hand is listed as such."""
    await open_table(env)
    await play(env, hands=1)
    first = await env.replays.history(TABLE)
    assert [s.hand_no for s in first] == [1] and first[0].finished
    await play(env, hands=1, then=2, seed=5)
    later = await env.replays.history(TABLE)
    assert [s.hand_no for s in later] == [1, 2, 3]
    assert later[0] == first[0]
    assert later[1].finished and not later[2].finished
    text = replay_history_text(later, NAMES)
    assert text.index("Hand 3") < text.index("Hand 1") and "in progress" in text
    assert replay_history_text([], NAMES) == "No hand has been dealt at this table yet."
    limited = await env.replays.history(TABLE, limit=2)
    assert [s.hand_no for s in limited] == [2, 3]


async def test_replay_closed_table_still_replays(env: Env) -> None:
    """A closed table's log stays: its hands can still be listed and replayed."""
    await open_table(env)
    await play(env, hands=1)
    await env.tables.close(TABLE, PLAYERS[0])
    fresh = ReplayService(env.store)
    assert [s.hand_no for s in await fresh.history(TABLE)] == [1]
    replay = await fresh.replay(TABLE, PLAYERS[2], 1)
    assert replay.summary.finished


async def test_replay_render_step_and_animation(env: Env) -> None:
    """A step renders as the board PNG plus the viewer's hand PNG (none for a stranger); the animation is a GIF
    whose frames all share one size and end on the outcome."""
    await open_table(env)
    await play(env, hands=1)
    mine = await env.replays.replay(TABLE, PLAYERS[0], 1)
    board, hand = replay_images.render_step(mine, 0, NAMES)
    assert board[:8] == b"\x89PNG\r\n\x1a\n" and hand is not None and hand[:4] == b"\x89PNG"
    stranger = await env.replays.replay(TABLE, STRANGER, 1)
    _board, none = replay_images.render_step(stranger, len(stranger.steps) - 1, NAMES)
    assert none is None
    gif = replay_images.share_animation(stranger, NAMES, max_frames=10)
    with Image.open(io.BytesIO(gif)) as im:
        assert im.format == "GIF"
        n = getattr(im, "n_frames", 1)
        extra = 1 if outcome_of(stranger, NAMES) is not None else 0
        assert n == min(10, len(stranger.steps)) + extra


def test_replay_frame_groups_coalesce_a_long_hand() -> None:
    """Every step alone when they fit; else consecutive groups covering every step once, the last step alone."""
    assert replay_images.frame_groups(5, 48) == [range(i, i + 1) for i in range(5)]
    groups = replay_images.frame_groups(250, 48)
    assert len(groups) == 48
    assert [i for g in groups for i in g] == list(range(250))
    assert groups[-1] == range(249, 250)
    assert replay_images.frame_groups(0, 48) == []


async def test_replay_animation_fits_the_byte_budget(env: Env) -> None:
    """Above the byte budget the frames are halved until the GIF fits (a long hand never fails to share)."""
    await open_table(env)
    await play(env, hands=1)
    replay = await env.replays.replay(TABLE, STRANGER, 1)
    full = replay_images.share_animation(replay, NAMES)
    budget = len(full) // 2
    small = replay_images.share_animation(replay, NAMES, max_bytes=budget)
    assert len(small) <= budget or len(replay.steps) <= 2
    assert len(small) < len(full)


async def test_replay_jump_options_are_few_and_cover_the_hand(env: Env) -> None:
    """At most 25 jump choices: the deal first, the end last, turn starts between; values are step indexes."""
    await open_table(env)
    await play(env, hands=1)
    replay = await env.replays.replay(TABLE, PLAYERS[0], 1)
    options = jump_options(replay, NAMES)
    values = [int(v) for v, _ in options]
    assert 2 <= len(options) <= MAX_JUMPS
    assert values[0] == 0 and values[-1] == len(replay.steps) - 1 and values == sorted(set(values))
    assert options[0][1] == "The deal" and options[-1][1].startswith("The end: Hand 1 — ")
    assert all(len(label) <= 100 for _, label in options)
    assert all(label.startswith("Turn ") for _, label in options[1:-1])


async def test_replay_transcript_replays_to_the_table(env: Env) -> None:
    """The transcript file holds the whole log: loading and replaying it gives the live table's state."""
    from pancog.game.notation import load_transcript, replay

    await open_table(env)
    await play(env, hands=1, then=4)
    transcript = load_transcript(await env.replays.transcript(TABLE))
    state, _events = replay(transcript.rules, transcript.actions, table_id=TABLE)
    assert state == env.tables.get(TABLE).state


@pytest.mark.skipif(not processes_available(), reason="no forkserver on this platform")
async def test_replay_render_jobs_run_in_process_workers(env: Env) -> None:
    """A step's and a share's render jobs are module-level functions with picklable inputs (process mode)."""
    await open_table(env)
    await play(env, hands=1)
    replay = await env.replays.replay(TABLE, PLAYERS[0], 1)
    snaps = replay_images.step_snapshots(replay, 3, NAMES)
    queue = RenderQueue(1, mode="process")
    try:
        board, hand = await queue.render(replay_images.render_step_pngs, snaps)
        gif = await queue.render(replay_images.animation_job, (replay, dict(NAMES), "en"))
    finally:
        queue.shutdown()
    assert (board, hand) == replay_images.render_step(replay, 3, NAMES)
    assert gif == replay_images.share_animation(replay, NAMES)
