"""Lint a directory of MCP captures with Dask, one partition per session.

    python examples/dask_lint.py captures/           # Dask's local scheduler

Each capture is cut into sessions (``mcplint.api.split_sessions``), every session is linted on
its own (``mcplint.api.lint_lines``) and the findings come back as plain dicts in the order
mcplint would print them. The same two functions work inside Spark (``rdd.flatMap``) or any other
engine that can ship Python functions to workers. Captures are found as ``mcplint check DIR``
finds them (excludes, ``.gitignore``, sniffing), limited to line-based stdio captures, which
``split_sessions`` can cut; a path that does not exist stops the script with exit 2.
"""

from __future__ import annotations

import sys

import dask.bag as db

from mcplint.api import InputError, expand_paths, lint_lines, split_sessions


def sessions_of(path: str) -> list[tuple[str, int, list[bytes]]]:
    with open(path, "rb") as handle:
        return [(path, first, chunk) for first, chunk in split_sessions(handle)]


def lint_session(item: tuple[str, int, list[bytes]]) -> list[dict]:
    path, first, chunk = item
    return [f.to_dict() for f in lint_lines(chunk, path, first_line=first)]


def lint_directory(directory: str, suffixes=(".jsonl", ".mcplog")) -> list[dict]:
    paths = [name.removeprefix("?") for name in expand_paths([directory]) if name.endswith(suffixes)]
    bag = db.from_sequence(paths, npartitions=max(1, len(paths))).map(sessions_of).flatten()
    findings = bag.repartition(npartitions=max(1, bag.count().compute())).map(lint_session).flatten().compute()
    return sorted(findings, key=lambda f: (f["path"], f["line"], f["code"]))


if __name__ == "__main__":
    try:
        findings = lint_directory(sys.argv[1] if len(sys.argv) > 1 else "samples")
    except InputError as exc:
        print(f"dask_lint: {exc}", file=sys.stderr)
        sys.exit(2)
    for finding in findings:
        print(f"{finding['path']}:{finding['line']}: {finding['code']} {finding['message']}")
