"""Quick schemas of the official wire types, kept on disk between runs (start-up time).

Building the validator of one method imports ``mcp_types``, whose public API loads the pydantic
models of every revision: about a quarter of a second, paid by every run, every ``--jobs``
worker and every pre-commit hook. The quick schemas that the SV rules validate with first
(``schema.quick_validator``) are plain JSON data, so they are kept here per ``(kind, method,
revision)``, with what else a rule needs before any error (params required, the type's name),
in the user's cache directory. A run whose messages the quick validators accept then never
imports ``mcp_types``, nor does a run that refuses some: the explaining schema (the wire type's
core schema with its model classes named: ``schema.explain_schema``) is kept here too, and so
are the names of the wire models (union arms are named by them).

The file is keyed by mcplint's version and the size and modification time of the modules the
schemas are derived from (``mcp_types``' and the schema rules'), so an upgrade or an edit starts
a new file (and the old ones are removed). Entries are added as methods are met, and written
once at exit, merged with what the file holds by then (atomically: ``--jobs`` workers add up).
``MCPLINT_CACHE_DIR`` names another directory; an empty value turns the disk cache off.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import orjson

import mcplint

#: (kind, method, revision) -> [params or result required, type name, quick schema or None,
#: explaining schema or None] (the schemas as JSON texts: parsing the nested data of every method
#: on every start cost more than the run of a small file), or None when the revision does not
#: define the method
Entry = list | None

_entries: dict[tuple[str, str, str], Entry] | None = None
_added = False


def _directory() -> Path | None:
    configured = os.environ.get("MCPLINT_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcplint"


def _sources() -> list[str]:
    """The files the cached schemas are derived from."""
    found = []
    spec = find_spec("mcp_types")  # (finds the package without importing it)
    if spec is not None and spec.submodule_search_locations:
        root = Path(next(iter(spec.submodule_search_locations)))
        found += sorted(str(path) for path in root.rglob("*.py"))
    here = Path(__file__).resolve().parent
    found += [str(here / "schema.py"), str(here / "_shapes.py")]
    return found


def _file() -> Path | None:
    directory = _directory()
    if directory is None:
        return None
    digest = hashlib.sha256(mcplint.__version__.encode())
    for source in _sources():
        try:
            stat = os.stat(source)
        except OSError:
            continue
        digest.update(f"{source}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return directory / f"wire-schemas-{digest.hexdigest()[:16]}.json"


def _read(path: Path | None) -> dict:
    """The entries of the file (only those of the right shape: it may have been damaged)."""
    try:
        data = orjson.loads(path.read_bytes()) if path is not None else []
    except (OSError, ValueError):
        return {}  # absent or unreadable: rebuilt as methods are met
    return {tuple(item[:3]): item[3] for item in data if _sound(item)} if type(data) is list else {}


def _sound(item: Any) -> bool:
    """``[kind, method, revision, entry]`` with an entry of the right shape."""
    if type(item) is not list or len(item) != 4 or not all(type(part) is str for part in item[:3]):
        return False
    entry = item[3]
    return entry is None or (type(entry) is list and len(entry) == 4 and type(entry[0]) is bool
                             and type(entry[1]) is str and all(part is None or type(part) is str
                                                               for part in entry[2:]))


def _load() -> dict:
    global _entries
    if _entries is None:
        _entries = _read(_file())
    return _entries


MISSING: Any = object()


def get(key: tuple[str, str, str]) -> Entry:
    """The cached entry of ``key``, or ``MISSING``."""
    return _load().get(key, MISSING)


def put(key: tuple[str, str, str], entry: Entry) -> None:
    """Keep ``entry`` (written at exit)."""
    global _added
    entries = _load()
    if entries.get(key, MISSING) != entry:
        entries[key] = entry
        if not _added:
            _added = True
            atexit.register(save)


def save() -> None:
    """Write the entries (atomically; errors are ignored: the cache is only a cache)."""
    path = _file()
    if path is None or not _entries:
        return
    entries = _read(path) | _entries  # what other processes (--jobs workers) kept meanwhile, too
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".wire-schemas-")
        with os.fdopen(handle, "wb") as out:
            out.write(orjson.dumps([[*key, entry] for key, entry in entries.items()]))
        os.replace(temporary, path)
        for stale in path.parent.glob("wire-schemas-*.json"):  # of other versions or sources
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        pass

