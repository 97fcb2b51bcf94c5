"""The configuration (pancog/infra/config.py): every environment variable parsed in one place, with its default, a
clear error for a bad value, documented in docs/operations.md, and read by no other module."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

import bot as bot_module
from pancog.adapter.deliveries import DEFAULT_POLL_SECONDS
from pancog.adapter.league_cog import DUE_CHECK_SECONDS
from pancog.adapter.tourney_cog import TICK_SECONDS
from pancog.infra import memory
from pancog.infra.config import DEFAULT_DB_PATH, Config, ConfigError, default_render_threads

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pancog" / "infra" / "config.py"
VARIABLE = re.compile(r"^(PAN|DISCORD|DATABASE|TEST|POD)_[A-Z_]+$")  # POD_NAME: Kubernetes


def variables_read() -> set[str]:
    """The names config.py reads: every string literal in it that looks like an environment variable."""
    tree = ast.parse(CONFIG.read_text(encoding="utf-8"))
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return {text for text in literals if VARIABLE.match(text)}


def test_nothing_set_is_the_defaults() -> None:
    config = Config.from_env({})
    assert config == Config()
    assert config.database == DEFAULT_DB_PATH and config.discord_token == "" and config.test_guild_id is None
    assert config.render_mode is None and config.render_threads == default_render_threads() <= 2
    assert (config.render_nice, config.log_level, config.log_json, config.deal_seed) == (5, "INFO", False, None)


def test_the_defaults_are_the_services_own() -> None:
    """A default stated here and in the service it configures cannot drift apart."""
    from pancog.services.bots import BotSettings
    from pancog.services.clock import ClockSettings

    config, clock, bots = Config(), ClockSettings(), BotSettings()
    assert (config.time_bank_seconds, config.idle_close_seconds, config.clock_scale) == (
        clock.time_bank_seconds,
        clock.idle_close_seconds,
        clock.time_scale,
    )
    assert (config.bot_delay, config.bot_next_hand_delay, config.bot_hard_budget_ms) == (
        bots.delay,
        bots.next_hand_delay,
        bots.hard_budget_ms,
    )
    assert (config.malloc_arenas, config.malloc_trim_seconds) == (memory.DEFAULT_ARENAS, memory.DEFAULT_TRIM_SECONDS)
    assert (config.tourney_tick_seconds, config.season_check_seconds) == (TICK_SECONDS, DUE_CHECK_SECONDS)
    assert config.outbox_poll_seconds == DEFAULT_POLL_SECONDS


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("DISCORD_TOKEN", " abc ", "discord_token", "abc"),
        ("TEST_GUILD_ID", "123", "test_guild_id", 123),
        ("DISCORD_API_BASE", "http://127.0.0.1:1/api/v10", "discord_api_base", "http://127.0.0.1:1/api/v10"),
        ("DISCORD_GATEWAY_URL", "ws://127.0.0.1:1/gateway/", "discord_gateway_url", "ws://127.0.0.1:1/gateway/"),
        ("PAN_GUILD_READY_TIMEOUT", "0.05", "guild_ready_timeout", 0.05),
        ("PAN_REST_GLOBAL_RATE", "45", "rest_global_rate", 45.0),
        ("PAN_REST_GLOBAL_RATE", "0", "rest_global_rate", 0.0),
        ("PAN_METRICS_PORT", "9108", "metrics_port", 9108),
        ("PAN_METRICS_HOST", "127.0.0.1", "metrics_host", "127.0.0.1"),
        ("PAN_DB_PATH", "games/pan.sqlite3", "database", "games/pan.sqlite3"),
        ("DATABASE_URL", "postgresql://pan@db/pan", "database", "postgresql://pan@db/pan"),
        ("PAN_LOG_LEVEL", "debug", "log_level", "DEBUG"),
        ("PAN_LOG_JSON", "1", "log_json", True),
        ("PAN_MALLOC_ARENAS", "0", "malloc_arenas", 0),
        ("PAN_MALLOC_TRIM_SECONDS", "15", "malloc_trim_seconds", 15.0),
        ("PAN_GIL_SWITCH_MS", "0.5", "gil_switch_ms", 0.5),
        ("PAN_EVENT_LOOP", "", "event_loop", "uvloop"),
        ("PAN_EVENT_LOOP", "AsyncIO", "event_loop", "asyncio"),
        ("PAN_RENDER_MODE", "Thread", "render_mode", "thread"),
        ("PAN_RENDER_MODE", "process", "render_mode", "process"),
        ("PAN_RENDER_THREADS", "4", "render_threads", 4),
        ("PAN_RENDER_THREADS", "0", "render_threads", 1),  # at least one worker
        ("PAN_RENDER_NICE", "12", "render_nice", 12),
        ("PAN_RENDER_NICE", "-4", "render_nice", 0),  # never above the bot's priority
        ("PAN_RENDER_NICE", "40", "render_nice", 19),
        ("PAN_RENDER_HANDS_INLINE", "", "render_hands_inline", True),
        ("PAN_RENDER_HANDS_INLINE", "0", "render_hands_inline", False),
        ("PAN_BOARD_INTERVAL", "2.5", "board_interval", 2.5),
        ("PAN_BOARD_INTERVAL", "60", "board_interval", 10.0),  # at most 10 s
        ("PAN_DEAL_SEED", "8", "deal_seed", 8),
        ("PAN_TIME_BANK_SECONDS", "0", "time_bank_seconds", 0.0),
        ("PAN_IDLE_CLOSE_SECONDS", "60", "idle_close_seconds", 60.0),
        ("PAN_CLOCK_SCALE", "300", "clock_scale", 300.0),
        ("PAN_BOT_DELAY", "0", "bot_delay", 0.0),
        ("PAN_BOT_NEXT_HAND_DELAY", "off", "bot_next_hand_delay", None),
        ("PAN_BOT_NEXT_HAND_DELAY", "0", "bot_next_hand_delay", 0.0),
        ("PAN_BOT_HARD_BUDGET_MS", "900", "bot_hard_budget_ms", 500.0),  # at most the normal budget
        ("PAN_TOURNEY_TICK", "0.001", "tourney_tick_seconds", 0.05),
        ("PAN_SEASON_CHECK_SECONDS", "0.5", "season_check_seconds", 0.5),
        ("PAN_OUTBOX_POLL_SECONDS", "0.25", "outbox_poll_seconds", 0.25),
        ("PAN_WEB_PORT", "8090", "web_port", 8090),
        ("PAN_WEB_PORT", "8090", "web_address", "http://localhost:8090"),
        ("PAN_WEB_HOST", "0.0.0.0", "web_host", "0.0.0.0"),
        ("PAN_WEB_URL", "https://pan.example/", "web_address", "https://pan.example"),
        ("PAN_WEB_DATABASE_URL", "postgresql://pan_web@db/pan", "web_database", "postgresql://pan_web@db/pan"),
        ("PAN_WEB_CACHE_SECONDS", "0", "web_cache_seconds", 0.0),
    ],
)
def test_each_variable_is_read_into_its_field(name: str, value: str, field: str, expected: Any) -> None:
    assert getattr(Config.from_env({name: value}), field) == expected


def test_database_url_overrides_the_sqlite_path() -> None:
    config = Config.from_env({"PAN_DB_PATH": "a.sqlite3", "DATABASE_URL": "postgresql://db/pan"})
    assert config.database == "postgresql://db/pan" and config.db_path == "a.sqlite3"


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("TEST_GUILD_ID", "my server", "whole number"),
        ("PAN_GUILD_READY_TIMEOUT", "-1", "at least 0"),
        ("PAN_REST_GLOBAL_RATE", "-1", "at least 0"),
        ("PAN_METRICS_PORT", "http", "whole number"),
        ("PAN_METRICS_PORT", "70000", "port number"),
        ("PAN_LOG_LEVEL", "loud", "one of DEBUG"),
        ("PAN_LOG_JSON", "yes", "one of 0, 1"),
        ("PAN_MALLOC_ARENAS", "2.5", "whole number"),
        ("PAN_MALLOC_TRIM_SECONDS", "-5", "at least 0"),
        ("PAN_GIL_SWITCH_MS", "fast", "a number"),
        ("PAN_EVENT_LOOP", "trio", "one of uvloop, asyncio"),
        ("PAN_RENDER_MODE", "gpu", "one of process, thread"),
        ("PAN_RENDER_THREADS", "many", "whole number"),
        ("PAN_RENDER_NICE", "low", "whole number"),
        ("PAN_RENDER_HANDS_INLINE", "yes", "one of 0, 1"),
        ("PAN_BOARD_INTERVAL", "0.5", "at least 1"),  # Discord allows a channel about 5 edits in 5 s
        ("PAN_BOARD_INTERVAL", "soon", "a number"),
        ("PAN_DEAL_SEED", "lucky", "whole number"),
        ("PAN_TIME_BANK_SECONDS", "nan", "a number"),
        ("PAN_CLOCK_SCALE", "0", "more than 0"),
        ("PAN_BOT_DELAY", "-1", "at least 0"),
        ("PAN_BOT_NEXT_HAND_DELAY", "later", "a number"),
        ("PAN_SEASON_CHECK_SECONDS", "0", "more than 0"),
        ("PAN_OUTBOX_POLL_SECONDS", "-3", "more than 0"),
        ("PAN_WEB_PORT", "0", "at least 1"),
        ("PAN_WEB_PORT", "70000", "1 to 65535"),
        ("PAN_WEB_URL", "pan.example", "http://"),
        ("PAN_WEB_CACHE_SECONDS", "-1", "at least 0"),
    ],
)
def test_a_bad_value_is_an_error_naming_the_variable(name: str, value: str, why: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"{name}={value!r}: ") + ".*" + re.escape(why)):
        Config.from_env({name: value})


def test_the_bot_refuses_to_start_on_a_bad_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """bot.py stops before it connects (and before it needs a token), saying which variable is wrong."""
    monkeypatch.setenv("PAN_RENDER_NICE", "low")
    assert bot_module.main([]) == 2
    assert "PAN_RENDER_NICE='low'" in capsys.readouterr().err


def _operations_table() -> dict[str, str]:
    """docs/operations.md, "Environment variables": variable -> its row."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        for name in re.findall(r"^\| `([A-Z_]+)`", line):
            rows[name] = line
    return rows


def test_every_variable_is_documented_and_every_documented_one_is_read() -> None:
    read = variables_read()
    assert len(read) >= 25, sorted(read)
    documented = _operations_table()
    internal = {"PAN_CLUSTER_INDEX"}  # set by the cluster launcher for its bots, documented, read by nothing
    assert read <= set(documented), f"undocumented: {sorted(read - set(documented))}"
    assert set(documented) - internal <= read, f"documented but never read: {sorted(set(documented) - read)}"


def field_variables() -> dict[str, set[str]]:
    """``Config.from_env``'s keywords: field -> the environment variables its value expression reads."""
    tree = ast.parse(CONFIG.read_text(encoding="utf-8"))
    from_env = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "from_env")
    build = next(
        n
        for n in ast.walk(from_env)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "cls" and n.keywords
    )
    return {
        str(k.arg): {
            n.value
            for n in ast.walk(k.value)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and VARIABLE.match(n.value)
        }
        for k in build.keywords
    }


def test_every_config_field_is_read_from_a_documented_variable() -> None:
    fields = {f.name for f in dataclasses.fields(Config)}
    read = field_variables()
    assert set(read) == fields, f"fields from_env does not fill: {sorted(fields - set(read))}"
    documented = _operations_table()
    for name, variables in read.items():
        assert len(variables) == 1, f"{name} reads {sorted(variables)}"
        (variable,) = variables
        assert variable in documented, f"{name}: {variable} is not in docs/operations.md"


def test_the_field_scan_sees_what_each_field_reads() -> None:
    read = field_variables()
    assert read["render_mode"] == {"PAN_RENDER_MODE"}
    assert read["web_port"] == {"PAN_WEB_PORT"}
    assert read["database_url"] == {"DATABASE_URL"}


def test_env_example_names_only_real_variables() -> None:
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    names = {line.split("=", 1)[0] for line in lines if line and not line.startswith("#")}
    assert "DISCORD_TOKEN" in names
    assert names <= variables_read(), sorted(names - variables_read())


# ------------------------------------------------------------------ no other module reads the environment

ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def reads_environment(source: str) -> list[int]:
    """Lines of ``source`` that touch the process environment (``os.environ``, ``os.getenv``, ``from os import
    environ``, under any alias)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT:
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [node.lineno for alias in node.names if alias.name in ENVIRONMENT]
    return found


def test_the_scan_sees_every_way_to_read_the_environment() -> None:
    assert reads_environment("import os\nx = os.environ.get('A')\n") == [2]
    assert reads_environment("import os as o\nx = o.getenv('A')\n") == [2]
    assert reads_environment("from os import environ\n") == [1]
    assert reads_environment("import os\npid = os.getpid()\n") == []


def test_only_the_config_module_reads_the_environment() -> None:
    sources = [*sorted((ROOT / "pancog").rglob("*.py")), *sorted((ROOT / "renderer").rglob("*.py")), ROOT / "bot.py"]
    assert len(sources) > 100
    readers = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if path != CONFIG and (lines := reads_environment(path.read_text(encoding="utf-8")))
    }
    assert readers == {}, "read the environment in pancog/infra/config.py and pass the value down"
    assert reads_environment(CONFIG.read_text(encoding="utf-8")), "the scan is blind"
