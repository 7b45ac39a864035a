"""``mcplint capture``: check the options, then run the stdio or the HTTP recorder and exit with its status."""

from __future__ import annotations

import sys
from typing import NoReturn

from mcplint.commands.common import fail


def run_capture_command(output, output_alias, redact, lint, grace, http, listen, upstream, insecure, command) -> None:
    """``mcplint capture`` with the options it was given (see ``mcplint capture --help``)."""
    if http:
        _capture_http(output or output_alias, redact, lint, listen, upstream, insecure, command)
    if not command:
        fail("capture needs a server command after --, or --http --upstream URL")
    if upstream or insecure:
        fail("--upstream and --insecure need --http")
    from mcplint.commands.capture.stdio import run_capture

    try:
        status = run_capture(list(command), output or output_alias, redact=redact, lint=lint, grace=grace)
    except OSError as exc:
        fail(f"cannot open capture file: {exc.filename or output or output_alias}: {exc.strerror or exc}")
    sys.exit(status)


def _capture_http(output, redact, lint, listen, upstream, insecure, command) -> NoReturn:
    if command:
        fail("--http records a remote server: no command after -- (use --upstream URL)")
    if not upstream:
        fail("--http needs --upstream URL (the server's http:// or https:// URL)")
    from mcplint.commands.capture.http import ProxyError, run_http_capture

    try:
        status = run_http_capture(listen, upstream, output, redact=redact, lint=lint, insecure=insecure)
    except ProxyError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot open capture file: {exc.filename or output}: {exc.strerror or exc}")
    sys.exit(status)
