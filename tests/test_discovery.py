"""File discovery (``mcplint.input.discovery``): excludes, .gitignore, sniffing, binary guards."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcplint.input.discovery import Finder, capture_format
from mcplint.input.registry import binary_reason

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
MESSAGE = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n'


def _tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


def _found(root: Path, monkeypatch, paths=(".",), **options) -> tuple[list[str], dict[str, str]]:
    monkeypatch.chdir(root)
    result = Finder(**options).discover(list(paths))
    return result.files, {d.path: d.reason for d in result.decisions if not d.lint}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _tree(tmp_path, {
        "package.json": '{"name": "x", "version": "1.0.0"}\n',
        "tsconfig.json": '{\n  "compilerOptions": {}\n}\n',
        "node_modules/x/package.json": '{"name": "x"}\n',
        "node_modules/x/trace.jsonl": MESSAGE,
        ".venv/lib/session.jsonl": MESSAGE,
        "build/out.jsonl": MESSAGE,
        ".gitignore": "private/\n*.tmp.jsonl\n!keep.tmp.jsonl\n",
        "private/broken.jsonl": MESSAGE,
        "a.tmp.jsonl": MESSAGE,
        "keep.tmp.jsonl": MESSAGE,
        "logs/pic.json": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "logs/notes.log": "server started\nlistening on 8080\n",
        "logs/empty.jsonl": "",
        "logs/broken.jsonl": MESSAGE,
        "logs/README.md": "not a candidate\n",
        "logs/sub/.gitignore": "*.mcplog\n",
        "logs/sub/hidden.mcplog": MESSAGE,
    })
    return tmp_path


def test_an_ordinary_repository_yields_only_its_captures(repo, monkeypatch):
    files, skipped = _found(repo, monkeypatch)
    assert files == ["keep.tmp.jsonl", "logs/broken.jsonl"]
    assert skipped["package.json"].startswith("no format claims it")
    assert skipped["logs/pic.json"] == "binary file (PNG image)"
    assert skipped["logs/empty.jsonl"] == "empty"
    assert skipped["node_modules/"] == skipped[".venv/"] == skipped["build/"] == "excluded"
    assert skipped["private/"] == skipped["a.tmp.jsonl"] == "ignored by .gitignore"
    assert skipped["logs/sub/hidden.mcplog"] == "ignored by .gitignore"
    assert "logs/README.md" not in skipped  # not a candidate suffix: not even listed


def test_not_captures_are_counted_apart_from_excluded_paths(repo, monkeypatch):
    monkeypatch.chdir(repo)
    result = Finder().discover(["."])
    assert sorted(d.path for d in result.not_captures) == [
        "logs/empty.jsonl", "logs/notes.log", "logs/pic.json", "package.json", "tsconfig.json"]


def test_gitignore_of_parent_folders_and_info_exclude_apply_to_a_subfolder_walk(repo, monkeypatch):
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("logs/broken.jsonl\n")
    files, skipped = _found(repo / "logs", monkeypatch)
    assert files == []
    assert skipped["broken.jsonl"] == "ignored by .gitignore"
    assert skipped["sub/hidden.mcplog"] == "ignored by .gitignore"


def test_gitignore_can_be_turned_off(repo, monkeypatch):
    files, _ = _found(repo, monkeypatch, respect_gitignore=False)
    assert "private/broken.jsonl" in files and "a.tmp.jsonl" in files and "logs/sub/hidden.mcplog" in files


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(repo, monkeypatch):
    files, _ = _found(repo, monkeypatch, exclude=[".git"])
    assert "node_modules/x/trace.jsonl" in files and "build/out.jsonl" in files
    files, skipped = _found(repo, monkeypatch, extend_exclude=["logs/"])
    assert files == ["keep.tmp.jsonl"] and skipped["logs/"] == "excluded"


def test_explicit_files_are_linted_unless_force_exclude(repo, monkeypatch):
    files, _ = _found(repo, monkeypatch, paths=["private/broken.jsonl", "package.json"])
    assert files == ["private/broken.jsonl", "package.json"]  # named: linted (and package.json fails later)
    files, skipped = _found(repo, monkeypatch, paths=["private/broken.jsonl", "node_modules/x/trace.jsonl",
                                                      "logs/broken.jsonl"], force_exclude=True)
    assert files == ["logs/broken.jsonl"]
    assert skipped["private/broken.jsonl"] == skipped["node_modules/x/trace.jsonl"] == "excluded (--force-exclude)"


def test_a_file_reached_twice_is_linted_once(repo, monkeypatch):
    files, skipped = _found(repo, monkeypatch, paths=["logs/broken.jsonl", ".", "./logs/broken.jsonl", "-", "-"])
    assert files == ["logs/broken.jsonl", "keep.tmp.jsonl", "-"]
    assert skipped["./logs/broken.jsonl"] == "already listed"


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.suffix != ".md"))
def test_every_sample_sniffs_as_a_capture(sample):
    assert capture_format((SAMPLES / sample).read_bytes()[:65536]) is not None


@pytest.mark.parametrize("head,what", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG image"), (b"%PDF-1.7\n", "PDF document"),
    (b"PK\x03\x04\x14\x00", "ZIP archive"), (b"\x1f\x8b\x08\x00", "gzip archive"),
    (b"\x7fELF\x02\x01", "ELF binary"), (b'{"a": 1}\x00\x00\x93\xfe\x01\x02\x00\x00\xa0', "control bytes"),
    (bytes(range(256)) * 8, "control bytes"),
])
def test_binary_heads_are_named(head, what):
    assert binary_reason(head) == what


@pytest.mark.parametrize("head", [MESSAGE.encode(), b"MZ is a fine way to start a log line\n", b"",
                                  "\ufeff".encode("utf-16") + "{}".encode("utf-16-le"),
                                  MESSAGE.encode("utf-16-le"),  # UTF-16 without BOM: readers report it
                                  MESSAGE.encode()[:-2] + b"\x00}\n"])  # a stray NUL: a finding
def test_text_is_not_binary(head):
    assert binary_reason(head) is None
