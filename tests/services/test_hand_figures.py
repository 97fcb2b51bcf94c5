"""The chip figures shown for a finished hand are the ledger's: a replay's end-of-hand image (the shared animation's
last frame) and its text twin, the history line, checked against the postings read straight from the database
(``tests/support/ledger_view.py``), on seeded hands where players collect conditions on turns before the hand ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.adapter.presenters.replay import outcome_of, summary_line
from pancog.infra.storage import SqliteStorage
from pancog.services.replay import build_replay
from renderer import outcome_text
from tests.services.test_replay import NAMES, PLAYERS, STRANGER, TABLE, Env, open_table, play
from tests.support.ledger_view import hand_seqs, ledger_hand_nets, stored_events


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        yield Env(storage)


def signed(n: int) -> str:
    return f"{n:+,}" if n else "0"


async def test_a_replays_end_of_hand_image_shows_the_ledgers_nets(env: Env) -> None:
    """The shared animation's last frame (the replay's end-of-hand image) gives every player the net the ledger's
    postings give him for the hand, for every viewer — also when conditions were paid to a player who did not win,
    on a turn before the hand ended (the replay used to rebuild the outcome from the public board, which does not
    hold those: bot +3, alice −1, bob −1, carol −1 against the ledger's bot 0, alice +4, carol 0, bob −4)."""
    await open_table(env)
    await play(env, hands=12, seed=1)
    log = await env.replays.log(TABLE)
    seqs = await hand_seqs(env.storage, TABLE)
    events = await stored_events(env.storage, TABLE)
    checked = paid_earlier_to_a_loser = 0
    for hand in log.hands:
        summary = hand.summary
        first, last = seqs[summary.hand_no]
        ledger = await ledger_hand_nets(env.storage, TABLE, first, last)
        for viewer in (STRANGER, *PLAYERS):
            outcome = outcome_of(build_replay(log, summary.hand_no, viewer), NAMES)
            if outcome is None:
                continue
            assert {n.name: n.chips for n in outcome.nets} == {NAMES[u]: n for u, n in ledger.items()}, (
                f"hand {summary.hand_no}, viewer {viewer}"
            )
            checked += 1
        seat_of = {user: seat for seat, user in enumerate(PLAYERS)}  # seated in order, nobody left
        winner_seat = seat_of.get(summary.winner_id or 0)
        paid_earlier_to_a_loser += any(
            kind == "ChipsMoved"
            and fields["reason"] == "condition"
            and first < seq < last
            and fields["payee"] != str(winner_seat)
            for seq, kind, fields in events
        )
    assert checked >= 40  # 8+ hands with a winner, 5 viewers each
    assert paid_earlier_to_a_loser >= 3  # the case the old replay got wrong, several times


async def test_the_end_of_hand_image_states_the_winners_net_never_what_he_collected(env: Env) -> None:
    """The end-of-hand image's headline (and its text twin's first line) and the history line give the winner's net
    for the hand, the ledger's figure: a winner who collected 4 chips and paid 4 is "net 0", never "+4 chips"."""
    await open_table(env)
    await play(env, hands=12, seed=2)
    log = await env.replays.log(TABLE)
    seqs = await hand_seqs(env.storage, TABLE)
    differ = zero = 0
    for hand in log.hands:
        summary = hand.summary
        if summary.winner_id is None:
            continue
        ledger = await ledger_hand_nets(env.storage, TABLE, *seqs[summary.hand_no])
        net = ledger[summary.winner_id]
        outcome = outcome_of(build_replay(log, summary.hand_no, STRANGER), NAMES)
        assert outcome is not None
        head = outcome_text(outcome).splitlines()[0]
        assert f"goes out, net {signed(net)} for the hand" in head, head
        assert f"(collected {outcome.total:,} chip" in head, head
        assert f"(net {signed(net)})" in summary_line(summary, NAMES)
        if outcome.total != net:
            differ += 1
            assert f"+{outcome.total:,} chip" not in head and f"+{outcome.total:,}" not in summary_line(summary, NAMES)
        zero += net == 0 and outcome.total > 0
    assert differ >= 5 and zero >= 1  # seed 2: hand 8's winner collected 4 chips and netted 0
