"""Re-record the real captures kept in ``samples/`` (``real-*.mcplog``).

    python -m tests.e2e.make_samples            # needs the test extra; node/npm for the third one

Each capture comes from the same runs as the end-to-end tests: the official Python SDK client,
``mcplint capture`` and a server (the SDK-built weather server, or the reference filesystem
server from npm). Machine-specific paths are replaced by neutral ones; nothing else changes.
After re-recording, update the ``Expected:`` lines of ``samples/README.md``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.e2e import scenarios
from tests.e2e.harness import RUNS, SERVERS, capture_params, drive, install_node_servers

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def neutral(path: Path, replacements: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in sorted(replacements.items(), key=lambda item: -len(item[0])):
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="mcplint-samples-"))
    server = str(SERVERS / "weather_server.py")
    common = {sys.executable: "python", server: "weather_server.py"}
    for run, name in (("2025-11-25", "real-sdk-weather-2025-11-25.mcplog"),
                      ("auto", "real-sdk-weather-2026-07-28.mcplog")):
        out = SAMPLES / name
        drive(capture_params(out, [sys.executable, server]), scenarios.weather, errlog_path=tmp / "stderr.txt",
              **RUNS[run])
        neutral(out, common)
        print("wrote", out)
    scope, reason = install_node_servers()
    if scope is None:
        print("skipped the filesystem sample:", reason)
        return
    workspace = scenarios.make_workspace(tmp)
    out = SAMPLES / "real-filesystem-2025-11-25.mcplog"
    command = ["node", str(scope / "server-filesystem" / "dist" / "index.js"), str(workspace)]
    roots = scenarios.RootsCallback(workspace)
    drive(capture_params(out, command), scenarios.filesystem(workspace, roots), errlog_path=tmp / "stderr.txt",
          roots=roots, sampling=False, elicitation=False, mode="auto")
    neutral(out, {str(scope): "node_modules/@modelcontextprotocol", str(workspace): "/home/user/project"})
    print("wrote", out)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
