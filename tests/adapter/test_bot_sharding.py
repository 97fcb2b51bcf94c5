"""bot.py as one process of a cluster: ``--shards N --cluster k/M`` and the IDENTIFY pacing by max_concurrency."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot as bot_module
from bot import IdentifyPacer, PanShardedBot, parse_args
from pancog.adapter.extension import shard_set_of
from pancog.infra.config import Config
from pancog.infra.storage import ShardSet


def test_cluster_arguments_pick_every_mth_shard() -> None:
    args = parse_args(["--shards", "4", "--cluster", "1/2"])
    assert (args.shard_count, args.shard_ids) == (4, [1, 3])
    assert parse_args(["--shards", "3"]).shard_ids == [0, 1, 2]
    assert parse_args([]).shard_count is None
    # the unit of deployment needs no --shards: PAN_SHARDS, else one shard per process
    assert parse_args(["--cluster", "1/2"]).shard_ids == [1]
    assert parse_args(["--cluster", "1/2"], shards_default=8).shard_ids == [1, 3, 5, 7]
    assert parse_args(["--cluster", "pod/4"], shards_default=8, pod_name="pan-2").shard_ids == [2, 6]


@pytest.mark.parametrize(
    "argv",
    [
        ["--cluster", "pod/2"],
        ["--shards", "4", "--cluster", "2/2"],
        ["--shards", "1", "--cluster", "0/2"],
        ["--shards", "0"],
    ],
)
def test_bad_cluster_arguments_exit_with_a_message(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(argv)
    assert exited.value.code == 2
    assert "bot.py: error:" in capsys.readouterr().err


def test_a_sharded_bot_runs_its_range_and_leases_it(tmp_path: Path) -> None:
    config = Config.from_env({"PAN_DB_PATH": str(tmp_path / "pan.sqlite3")})
    sharded = bot_module.build_bot(config, shard_count=4, shard_ids=[2, 3])
    assert isinstance(sharded, PanShardedBot)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [2, 3])
    assert shard_set_of(sharded) == ShardSet(4, (2, 3))
    plain = bot_module.build_bot(config)
    assert not isinstance(plain, PanShardedBot) and shard_set_of(plain) is None


async def test_identify_pacer_spaces_shards_of_one_bucket_only() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = IdentifyPacer(2, clock=lambda: now[0], sleep=sleep)
    assert [await pacer.wait(s) for s in (0, 1)] == [0.0, 0.0], "two buckets identify at once"
    now[0] += 1.0
    assert await pacer.wait(2) == pytest.approx(4.0), "shard 2 shares bucket 0 with shard 0: 5 s after it"
    assert slept == [pytest.approx(4.0)]
    assert await IdentifyPacer(16).wait(15) == 0.0
    assert IdentifyPacer(0).max_concurrency == 1
