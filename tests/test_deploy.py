"""The deployment files in deploy/ do what docs/operations.md says: read by the tools that read them (systemd's own
verifier, a YAML parser) and run through bot.py's own argument and configuration parsing, so a unit or manifest that
would start the wrong shards, never restart, be killed mid-handover or probe the wrong port fails here, not in a
server admin's cluster."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import parse_args
from pancog.infra.config import Config

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "deploy" / "pan@.service"
MANIFEST = ROOT / "deploy" / "k8s" / "statefulset.yaml"
VARIABLE = re.compile(r"\b((?:PAN|DISCORD|DATABASE|POD)_[A-Z_]+)\b")


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def _shards(argv: list[str], env: dict[str, str]) -> list[int]:
    """The shards bot.py would run with ``argv`` in ``env``, through its own parsing (as ``bot.main`` does)."""
    config = Config.from_env(env)
    args = parse_args(argv, shards_default=config.shards, pod_name=config.pod_name)
    assert args.shard_ids is not None
    return list(args.shard_ids)


def _documented() -> set[str]:
    docs = ROOT / "docs"
    return set(VARIABLE.findall((docs / "operations.md").read_text() + (docs / "admin.md").read_text()))


def test_systemd_verifies_the_unit() -> None:
    """systemd's own verifier reads the template as an instance: an unknown key or a bad value is an error. The one
    complaint allowed is that /opt/pan is not installed on the test machine."""
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze is missing: scripts/test installs Debian's systemd package"
    with_instance = UNIT.parent / "pan@1.service"
    result = subprocess.run(
        [analyze, "verify", "--man=no", str(with_instance)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    complaints = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if line.strip() and "/opt/pan/.venv/bin/python is not executable" not in line
    ]
    assert complaints == []


def test_each_unit_instance_runs_its_own_shards_and_restarts_after_losing_them() -> None:
    service = _unit()["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[:2] == ["/opt/pan/.venv/bin/python", "bot.py"] and service["WorkingDirectory"] == "/opt/pan"
    size, shards = 4, 8  # deploy/README.md's pan.env: PAN_CLUSTER_SIZE=4, PAN_SHARDS=8
    owned: list[int] = []
    for k in range(size):
        argv = [a.replace("%i", str(k)).replace("${PAN_CLUSTER_SIZE}", str(size)) for a in command[2:]]
        mine = _shards(argv, {"PAN_SHARDS": str(shards)})
        assert mine == list(range(k, shards, size))
        owned += mine
    assert sorted(owned) == list(range(shards))  # every shard run by exactly one instance
    # exit 75 (its leases were taken: presumed dead) and crashes start it again, as a standby
    assert service["Restart"] == "always" and float(service["RestartSec"]) > 0
    # SIGTERM hands the leases over; systemd waits longer than the bot's own stop bound before SIGKILL
    assert service["KillSignal"] == "SIGTERM"
    assert float(service["TimeoutStopSec"]) > Config.from_env({}).stop_timeout
    assert service["EnvironmentFile"] == "/etc/pan/pan.env"


def _manifest() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def test_the_statefulset_runs_every_shard_once_from_its_pod_ordinals() -> None:
    service, statefulset = _manifest()
    assert (service["kind"], statefulset["kind"]) == ("Service", "StatefulSet")
    spec = statefulset["spec"]
    (container,) = spec["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    plain = {name: e["value"] for name, e in env.items() if "value" in e}
    command = container["command"]
    assert command[:2] == ["python", "bot.py"]
    owned: list[int] = []
    for ordinal in range(spec["replicas"]):  # pod pan-k, named by the StatefulSet
        mine = _shards(command[2:], plain | {"POD_NAME": f"{statefulset['metadata']['name']}-{ordinal}"})
        owned += mine
    assert sorted(owned) == list(range(int(plain["PAN_SHARDS"])))  # replicas = M: every shard, each once
    # the pods' graceful stop outlasts the bot's own stop bound (the handover), then Kubernetes kills
    assert spec["template"]["spec"]["terminationGracePeriodSeconds"] > Config.from_env({}).stop_timeout


def test_the_statefulset_probes_and_exposes_the_port_the_bot_serves() -> None:
    service, statefulset = _manifest()
    template = statefulset["spec"]["template"]
    (container,) = template["spec"]["containers"]
    plain = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    port = Config.from_env(plain).metrics_port  # where the bot serves /metrics and /healthz
    (named,) = [p for p in container["ports"] if p["name"] == "metrics"]
    assert named["containerPort"] == port
    for probe in ("startupProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert service["spec"]["clusterIP"] == "None"  # headless: each pod scraped on its own
    assert service["spec"]["selector"].items() <= template["metadata"]["labels"].items()
    assert statefulset["spec"]["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["metrics"]


@pytest.mark.parametrize("path", [UNIT, MANIFEST, ROOT / "deploy" / "README.md"], ids=lambda p: p.name)
def test_every_variable_the_deploy_files_set_is_a_documented_setting(path: Path) -> None:
    named = set(VARIABLE.findall(path.read_text()))
    assert named and named <= _documented() | {"POD_NAME"}, named - _documented()
