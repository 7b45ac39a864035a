"""Which files a run lints: paths named on the command line and captures found under directories.

``mcplint check .`` must work in an ordinary repository, as ruff does:

- directories are walked with default excludes (``.git``, ``.venv``, ``node_modules``...), the
  configured ``exclude``/``extend-exclude`` patterns and, unless turned off, ``.gitignore`` files
  (every level, negations included), ``.git/info/exclude`` and git's global excludes file;
- a file found under a directory is a *candidate* when its suffix is one a capture uses, and it
  is kept only when its content sniffs as a capture (a registered input format claims it, or a
  JSON-RPC message shows in its head); the others are skipped with a reason, never linted;
- a file named explicitly is always linted (unless ``--force-exclude`` and an exclude matches),
  so a file in no known format still fails the run with exit 2, unless ``--skip-non-captures``
  (pre-commit names every changed ``.json``/``.log`` file) sniffs it as a walk would;
- the same file, named twice or reached twice, is linted once.

:func:`~mcplint.input.registry.binary_reason` is also the guard of every command against binary input.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcplint.input import readers as _every_format  # noqa: F401  (importing it registers every input format)
from mcplint.input.registry import INPUT_FORMATS, SNIFF_LINES, binary_reason, scored

if TYPE_CHECKING:
    import pathspec

#: What a directory walk never enters or lints (ruff's list, plus build outputs of JS and Python).
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv",
)

#: Suffixes a capture uses; other files under a directory are not looked at.
CAPTURE_SUFFIXES: tuple[str, ...] = (".jsonl", ".ndjson", ".mcplog", ".transcript", ".log", ".json", ".har")

#: How much of a found file is read to decide whether it is a capture.
SNIFF_HEAD_BYTES = 64 << 10

@dataclass(frozen=True)
class Decision:
    """What discovery decided for one path, and why (``--show-files``).

    ``not_capture`` marks a file found under a directory whose content is no MCP capture (the
    summary counts those); excluded, ignored and repeated paths are only listed.
    """

    path: str
    lint: bool
    reason: str
    not_capture: bool = False
    named: bool = False  # named on the command line (or stdin), not found under a directory


@dataclass
class Discovery:
    """The files to lint for a list of command-line paths, and what was skipped."""

    files: list[str] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)

    @property
    def not_captures(self) -> list[Decision]:
        """Files found under a directory that are not MCP captures (binary, empty, other JSON)."""
        return [d for d in self.decisions if d.not_capture]


class _Ignores:
    """Gitignore-style patterns that apply below one directory (``base``)."""

    __slots__ = ("base", "spec")

    def __init__(self, base: Path, spec: pathspec.PathSpec):
        self.base, self.spec = base, spec

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a negation; None: no pattern speaks.
        ``path`` is resolved, as ``base`` is."""
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        if rel == ".":
            return None
        return self.spec.check_file(rel + "/" if is_dir else rel).include


def _gitignore(base: Path, file: Path) -> _Ignores | None:
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec

    return _Ignores(base, pathspec.GitIgnoreSpec.from_lines(lines)) if lines else None


def _repo_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _global_excludes_file() -> Path | None:
    """git's ``core.excludesFile`` (or its default, ``$XDG_CONFIG_HOME/git/ignore``)."""
    if shutil.which("git"):
        try:
            out = subprocess.run(["git", "config", "--path", "--get", "core.excludesFile"], capture_output=True,
                                 text=True, timeout=5, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out:
            return Path(out).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "git" / "ignore"


class Finder:
    """Walks paths with excludes and gitignore rules; sniffs the files it finds.

    ``exclude`` replaces :data:`DEFAULT_EXCLUDES`, ``extend_exclude`` adds to them (both are
    gitignore-style patterns, relative to the directory the run starts in).
    """

    def __init__(self, exclude: Sequence[str] | None = None, extend_exclude: Sequence[str] = (),
                 respect_gitignore: bool = True, force_exclude: bool = False, root: str | Path = ".",
                 skip_non_captures: bool = False):
        self.root = Path(root).resolve()
        self._patterns = list(DEFAULT_EXCLUDES if exclude is None else exclude) + list(extend_exclude)
        self._excludes: pathspec.PathSpec | None = None
        self.respect_gitignore = respect_gitignore
        self.force_exclude = force_exclude
        self.skip_non_captures = skip_non_captures
        self._global: list[pathspec.PathSpec] | None = None

    # -- public --------------------------------------------------------------------------------
    def discover(self, paths: Sequence[str]) -> Discovery:
        """Files to lint for ``paths`` (``-`` is stdin), in command-line order, each once."""
        found = Discovery()
        seen: set[str] = set()

        def keep(name: str, reason: str, named: bool = True) -> None:
            key = name if name == "-" else os.path.realpath(name)
            if key in seen:
                found.decisions.append(Decision(name, False, "already listed"))
                return
            seen.add(key)
            found.files.append(name)
            found.decisions.append(Decision(name, True, reason, named=named))

        for name in paths:
            if name == "-":
                keep(name, "standard input")
                continue
            path = Path(name)
            if path.is_dir():
                for decision in self._walk(path):
                    if decision.lint:
                        keep(decision.path, decision.reason, named=False)
                    else:
                        found.decisions.append(decision)
            elif self.force_exclude and self._excluded_explicit(path):
                found.decisions.append(Decision(name, False, "excluded (--force-exclude)"))
            elif self.skip_non_captures and not (decision := self._sniffed(name)).lint:
                found.decisions.append(decision)
            else:
                keep(name, "named on the command line")
        return found

    # -- walking -------------------------------------------------------------------------------
    def _walk(self, top: Path) -> Iterator[Decision]:
        ignores = self._inherited(top)
        yield from self._walk_dir(top, ignores)

    def _walk_dir(self, folder: Path, ignores: list[_Ignores]) -> Iterator[Decision]:
        if self.respect_gitignore:
            own = _gitignore(folder.resolve(), folder / ".gitignore")
            if own is not None:
                ignores = [*ignores, own]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield Decision(str(folder), False, f"unreadable directory ({exc.strerror})")
            return
        for entry in entries:
            path = folder / entry.name
            try:
                is_dir = entry.is_dir()
                is_file = entry.is_file()
            except OSError:
                continue
            if not (is_dir or is_file):
                continue  # sockets, FIFOs, broken links
            why = self._why_excluded(path, is_dir, ignores)
            if is_dir:
                if why is None:
                    yield from self._walk_dir(path, ignores)
                else:
                    yield Decision(f"{path}{os.sep}", False, why)
                continue
            if not entry.name.endswith(CAPTURE_SUFFIXES):
                continue  # not a candidate: not listed
            yield Decision(str(path), False, why) if why is not None else self._sniffed(str(path))

    def _why_excluded(self, path: Path, is_dir: bool, ignores: list[_Ignores]) -> str | None:
        resolved = path.resolve()
        rel = _relative(resolved, self.root)
        if self.excludes().check_file(rel + "/" if is_dir else rel).include:
            return "excluded"
        verdict = None
        for layer in ignores:  # deeper files speak last and win
            said = layer.verdict(resolved, is_dir)
            if said is not None:
                verdict = said
        return "ignored by .gitignore" if verdict else None

    def _excluded_explicit(self, path: Path) -> bool:
        """``--force-exclude``: the file, or a folder between the run's root and it, is excluded."""
        resolved = path.resolve()
        layers = self._inherited(resolved.parent)
        if self.respect_gitignore:
            own = _gitignore(resolved.parent, resolved.parent / ".gitignore")
            layers += [own] if own is not None else []
        for part in (resolved, *resolved.parents):
            if part == self.root or part == Path(part.anchor):
                break
            if self._why_excluded(part, part != resolved, layers):
                return True
        return False

    def _inherited(self, top: Path) -> list[_Ignores]:
        """Ignore files that apply to ``top`` from above it: git's global excludes file,
        ``.git/info/exclude`` and the ``.gitignore`` of every folder from the repository root
        down to ``top``'s parent (``top``'s own is read by the walk)."""
        if not self.respect_gitignore:
            return []
        top = top.resolve()
        repo = _repo_root(top)
        if repo is None:
            return []
        layers = [_Ignores(repo, spec) for spec in self._global_specs()]
        info = _gitignore(repo, repo / ".git" / "info" / "exclude")
        layers += [info] if info is not None else []
        for folder in reversed(top.parents):
            if folder == repo or repo in folder.parents:
                own = _gitignore(folder, folder / ".gitignore")
                layers += [own] if own is not None else []
        return layers

    def excludes(self) -> pathspec.PathSpec:
        """The exclude patterns, compiled on first use (pathspec is imported then: a run on named
        files without --force-exclude needs none)."""
        if self._excludes is None:
            import pathspec
            self._excludes = pathspec.GitIgnoreSpec.from_lines(self._patterns)
        return self._excludes

    def _global_specs(self) -> list[pathspec.PathSpec]:
        """git's global excludes (read once; its patterns apply relative to each repository)."""
        if self._global is None:
            file = _global_excludes_file()
            layer = _gitignore(Path("/"), file) if file is not None and file.is_file() else None
            self._global = [layer.spec] if layer is not None else []
        return self._global

    # -- sniffing ------------------------------------------------------------------------------
    @staticmethod
    def _sniffed(name: str) -> Decision:
        try:
            with open(name, "rb") as handle:
                head = handle.read(SNIFF_HEAD_BYTES)
        except OSError as exc:
            return Decision(name, False, f"unreadable ({exc.strerror})", not_capture=True)
        if not head.strip():
            return Decision(name, False, "empty", not_capture=True)
        binary = binary_reason(head)
        if binary is not None:
            return Decision(name, False, f"binary file ({binary})", not_capture=True)
        fmt = capture_format(head)
        if fmt is None:
            return Decision(name, False, "no format claims it and no JSON-RPC message in its head", not_capture=True)
        return Decision(name, True, f"found under a directory ({fmt})")


def capture_format(head: bytes) -> str | None:
    """The input format that claims ``head``, or None when nothing in it is MCP traffic.

    A specific format (capture, HAR, host logs...) must claim it; the JSON Lines fallback counts
    only when a JSON-RPC message shows (``"jsonrpc"``), so ``package.json`` is no capture.
    """
    lines = head.split(b"\n")
    if len(head) == SNIFF_HEAD_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line is cut
    fmt, score = scored(lines[:SNIFF_LINES])
    if score > INPUT_FORMATS["jsonl"].sniff([]):
        return fmt
    return "jsonl" if b'"jsonrpc"' in head else None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix().lstrip("/")
