"""Schema migrations for every backend, from one folder: ``pancog/infra/storage/sql/``.

A migration is version ``n`` with a name, in one of two forms:

* ``V<n>__<name>.sql`` — portable SQL that both SQLite and PostgreSQL run unchanged (the usual case for new
  tables: ``BIGINT`` ids and chips, ``DOUBLE PRECISION`` times, ``TEXT``, ``CHECK``, ``ON CONFLICT``); or
* ``V<n>__<name>.sqlite.sql`` **and** ``V<n>__<name>.postgres.sql`` side by side, when the dialects differ
  (triggers, identity columns, date functions).

:func:`load_migrations` checks the whole folder for every dialect at once (versions 1..n without a gap, one
name per version, never a dialect file without its twin), so a migration written for one dialect only fails
the tests of both backends. See docs/storage.md, "Adding a migration".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pancog.infra.storage.base import StorageError

__all__ = ["DIALECTS", "MIGRATIONS_DIR", "Dialect", "Migration", "load_migrations"]

Dialect = Literal["sqlite", "postgres"]
DIALECTS: tuple[Dialect, ...] = ("sqlite", "postgres")
MIGRATIONS_DIR = Path(__file__).resolve().parent / "sql"
_NAME = re.compile(r"^V(?P<version>\d+)__(?P<name>\w+?)(?:\.(?P<dialect>sqlite|postgres))?\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str
    path: Path


def load_migrations(dialect: Dialect, directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations of ``dialect``, ordered by version. Raises :class:`StorageError` on a malformed folder."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown SQL dialect {dialect!r}")
    files: dict[int, dict[str | None, Path]] = {}
    names: dict[int, set[str]] = {}
    for path in directory.iterdir():
        match = _NAME.match(path.name)
        if match is None:
            continue
        version = int(match["version"])
        variants = files.setdefault(version, {})
        if match["dialect"] in variants:
            raise StorageError(f"two migration files for version {version}: {path.name}")
        variants[match["dialect"]] = path
        names.setdefault(version, set()).add(match["name"])
    versions = sorted(files)
    if versions != list(range(1, len(versions) + 1)):
        raise StorageError(f"migration versions must be 1..n without gaps: {versions}")
    found: list[Migration] = []
    for version in versions:
        variants = files[version]
        if len(names[version]) != 1:
            raise StorageError(f"migration {version} has files with different names: {sorted(names[version])}")
        if None in variants and len(variants) > 1:
            raise StorageError(f"migration {version} has both a portable file and dialect files")
        if None not in variants and set(variants) != set(DIALECTS):
            missing = sorted(set(DIALECTS) - set(variants))
            raise StorageError(f"migration {version} has no file for {', '.join(d for d in missing if d)}")
        path = variants.get(dialect) or variants[None]
        found.append(Migration(version, names[version].pop(), path.read_text(encoding="utf-8"), path))
    return found
