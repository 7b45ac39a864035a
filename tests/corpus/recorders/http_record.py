"""Record one HTTP corpus session: start a server, put the test Recorder (tests/e2e/har_proxy.py,
HAR with per-chunk timing) in front of it on loopback, run a client against the recorder, write
the HAR.

Run from the repository root with the project venv (the recorder needs uvicorn and httpx2):
  . /work/venv/bin/activate
  python tests/corpus/recorders/http_record.py --out tests/corpus/NAME.har \
      --server 'SERVER COMMAND with {port}' -- CLIENT COMMAND with {url}
``{port}`` is a free loopback port for the server, ``{url}`` the recorder's MCP endpoint
(``http://127.0.0.1:<port>/mcp``). The server is stopped when the client exits.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tests.e2e.har_proxy import Recorder, serve  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port: int, timeout: float = 20) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"the server did not listen on {port}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--server", required=True, help="shell command; {port} is replaced")
    parser.add_argument("--server-cwd", default=None)
    parser.add_argument("--path", default="/mcp", help="the MCP endpoint path")
    parser.add_argument("client", nargs=argparse.REMAINDER, help="-- client command; {url} is replaced")
    args = parser.parse_args()
    client = [part for part in args.client if part != "--"] if args.client[:1] == ["--"] else args.client
    port = free_port()
    server = subprocess.Popen(args.server.format(port=port), shell=True, cwd=args.server_cwd,
                              start_new_session=True)
    try:
        wait_for(port)
        recorder = Recorder(f"http://127.0.0.1:{port}")
        with serve(recorder) as proxy:
            url = proxy + args.path
            print(f"recording {url} -> 127.0.0.1:{port}", file=sys.stderr)
            code = subprocess.call([part.replace("{url}", url) for part in client])
            time.sleep(1.0)  # let the last streams (GET, DELETE, late answers) finish recording
        recorder.write(args.out)
        print(f"{args.out}: {len(recorder.entries)} entries, client exit {code}", file=sys.stderr)
        return code
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
