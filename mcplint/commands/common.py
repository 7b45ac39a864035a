"""What every ``mcplint`` command shares: where input comes from, where output goes, how it fails.

- :func:`input_paths`: no path means ``.`` at a terminal and stdin when something is piped in.
- :class:`OutputFile`: ``-o`` is written through a temporary file next to the target and renamed
  only when the command finished, so an error or Ctrl-C leaves no partial file behind; a target
  that cannot be written is a one-line error before any work starts. A device or FIFO
  (``-o /dev/null``) is written in place: renaming over it would replace the device.
- :func:`fail`: the one-line ``mcplint: error: ...`` and exit status 2; :func:`say` and :func:`warn`
  for other messages on stderr (all three show capture-derived text safely).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import Any, NoReturn

import click

from mcplint.untrusted import shown, shown_lines

#: Exit statuses (README "Exit status"); 141 is what a shell reports for a SIGPIPE death.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


def say(message: str) -> None:
    """A message on stderr. Messages name files and quote captures, so what they hold is
    :func:`~mcplint.untrusted.shown`: no escape sequence from a capture reaches the terminal."""
    click.echo(shown_lines(message), err=True)


def fail(message: str) -> NoReturn:
    """Say what could not be done, in one line, and exit 2."""
    say(f"mcplint: error: {shown(message)}")
    sys.exit(EXIT_ERROR)


def split_list(values: tuple[str, ...] | list[str]) -> list[str]:
    """Repeatable, comma-separated option values as one list (``--select A,B --select C``)."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def warn(message: str) -> None:
    """A warning on stderr, in one line."""
    say(f"mcplint: warning: {shown(message)}")


def stdin_is_piped() -> bool:
    """Whether stdin carries data (a pipe, a redirected file or a socket), not a terminal or
    ``/dev/null`` (CI runners start commands with stdin closed or on ``/dev/null``)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def input_paths(paths: tuple[str, ...] | list[str]) -> list[str]:
    """The paths a command reads: as given, else stdin when piped, else the working directory."""
    if paths:
        return list(paths)
    return ["-"] if stdin_is_piped() else ["."]


def one_input(path: str | None) -> str:
    """The input of a one-file command (``convert``, ``redact``): as given, else stdin when
    piped, else a one-line error."""
    if path is not None:
        return path
    if not stdin_is_piped():
        fail("no input: name a file, or pipe one in (PATH - reads stdin)")
    return "-"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class OutputFile:
    """An output destination: stdout (``path`` None or ``-``) or a file written atomically.

    Open it before the work starts (:meth:`open` fails with a one-line error when the file
    cannot be written); :meth:`commit` renames the temporary file into place, :meth:`discard`
    (also on any exception inside ``with``) removes it.
    """

    def __init__(self, path: str | None, *, binary: bool = False, what: str = "output file"):
        self.path = None if path in (None, "-") else path
        self.binary = binary
        self.what = what
        self.stream: Any = None
        self._tmp: str | None = None
        self._target = ""

    def open(self) -> OutputFile:
        if self.path is None:
            self.stream = sys.stdout.buffer if self.binary else sys.stdout
            return self
        path = self.path
        if os.path.isdir(path):
            fail(f"{self.what} {path}: is a directory")
        self._target = os.path.realpath(path)  # through a symlink: the rename replaces its target, not the link
        folder = os.path.dirname(self._target)
        if not os.path.isdir(folder):
            fail(f"{self.what} {path}: no such directory {folder}")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            fail(f"{self.what} {path}: permission denied")
        if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
            return self._open_in_place(path)  # /dev/null, a FIFO: a rename would replace the device
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".part", dir=folder)
        except OSError as exc:
            fail(f"{self.what} {path}: cannot write ({exc.strerror or exc})")
        self.stream = os.fdopen(fd, "wb") if self.binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
        return self

    def _open_in_place(self, path: str) -> OutputFile:
        try:
            self.stream = open(path, "wb") if self.binary else open(path, "w", encoding="utf-8", newline="")
        except OSError as exc:
            fail(f"{self.what} {path}: cannot write ({exc.strerror or exc})")
        return self

    def commit(self) -> None:
        if self._tmp is None:
            if self.stream is not None and not self.stream.closed:
                self.stream.flush()
                if self.path is not None:
                    self.stream.close()  # written in place: a FIFO's reader sees the end
            return
        tmp, self._tmp = self._tmp, None
        try:
            self.stream.close()
            target = self._target
            mode = os.stat(target).st_mode & 0o7777 if os.path.exists(target) else 0o666 & ~_umask()
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except OSError as exc:
            _unlink(tmp)
            fail(f"{self.what} {self.path}: cannot write ({exc.strerror or exc})")

    def discard(self) -> None:
        if self._tmp is not None:
            tmp, self._tmp = self._tmp, None
            try:
                self.stream.close()
            finally:
                _unlink(tmp)

    def __enter__(self) -> OutputFile:
        return self.open() if self.stream is None else self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
