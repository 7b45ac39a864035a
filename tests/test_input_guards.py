"""Every command refuses binary input with one line and exit 2 (issue 15's input guards)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mcplint.cli import main

BINARIES = {
    "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
    "archive.zip": b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)),
    "doc.pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n",
    "blob.bin": bytes(range(256)) * 8,
}
COMMANDS = [["check"], ["stats"], ["show"], ["diagnose"], ["convert"], ["redact"], ["redact", "--check"]]


@pytest.mark.parametrize("name", sorted(BINARIES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_binary_input_is_refused_in_one_line(tmp_path, name, command):
    path = tmp_path / name
    path.write_bytes(BINARIES[name])
    result = CliRunner().invoke(main, [*command, str(path)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "binary file" in lines[0] and "not an MCP capture" in lines[0]
    assert str(path) in lines[0]
    assert "Traceback" not in result.output


def test_redact_to_a_file_refuses_binary_and_leaves_nothing_behind(tmp_path):
    path = tmp_path / "image.png"
    path.write_bytes(BINARIES["image.png"])
    result = CliRunner().invoke(main, ["redact", str(path), "-o", str(tmp_path / "out.mcplog")])
    assert result.exit_code == 2 and "binary file" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["image.png"]
