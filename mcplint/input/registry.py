"""The input formats mcplint reads: their registry, and sniffing (which format the head of an
input is in, or that it is a binary file no format reads).

Each format module registers its :class:`InputFormat` here at import;
:mod:`mcplint.input.readers` imports them all, in order of preference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from mcplint.input.parse import Frame

SNIFF_LINES = 50
SNIFF_BYTES = 1 << 20


@dataclass(frozen=True)
class InputFormat:
    """One input format: its reader and how to recognise it.

    ``sniff`` gets the first lines (decoded, stripped) and returns a score from 0 (not this
    format) to 100 (certainly this format); the highest score wins.
    """

    name: str
    read: Callable[[Iterable[tuple[bytes, bool]]], Iterator[Frame]]
    sniff: Callable[[list[str]], int]
    description: str
    #: a format of binary files (mitmproxy flows): a head it claims is not rejected as binary
    binary: bool = False
    #: what the reader lacks on this installation (an optional extra), as a message; None: ready
    missing: Callable[[], str | None] | None = None


#: Every input format, in order of preference on equal scores. New formats register here (see
#: ``register_format``); redaction, sniffing and ``--input-format`` follow automatically.
INPUT_FORMATS: dict[str, InputFormat] = {}
READERS: dict[str, Callable[[Iterable[tuple[bytes, bool]]], Iterator[Frame]]] = {}


def register_format(fmt: InputFormat) -> InputFormat:
    INPUT_FORMATS[fmt.name] = fmt
    READERS[fmt.name] = fmt.read
    return fmt


def scored(head: list[bytes]) -> tuple[str, int]:
    texts = [data.decode("utf-8", "replace").lstrip("\ufeff").strip() for data in head]
    best, score = "jsonl", -1
    for fmt in INPUT_FORMATS.values():
        value = fmt.sniff(texts)
        if value > score:
            best, score = fmt.name, value
    return best, score


def sniff(head: list[bytes]) -> str:
    """Name the format of a file from its first lines (the best-scoring registered format)."""
    return scored(head)[0]


class UnknownFormat(ValueError):
    """An input in none of the registered formats (``mcplint check`` exits 2)."""


class BinaryInput(UnknownFormat):
    """An image, archive, executable or other binary file: no command reads it (exit 2)."""


#: Leading bytes of formats that are never text captures.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"), (b"\xff\xd8\xff", "JPEG image"), (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"), (b"%PDF-", "PDF document"), (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"), (b"BZh", "bzip2 archive"), (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"), (b"\x28\xb5\x2f\xfd", "zstd archive"), (b"\x7fELF", "ELF binary"),
    (b"MZ", "Windows executable"), (b"\xca\xfe\xba\xbe", "Mach-O binary"), (b"\xcf\xfa\xed\xfe", "Mach-O binary"),
    (b"SQLite format 3\x00", "SQLite database"), (b"RIFF", "RIFF media"), (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"), (b"\x00\x00\x00\x18ftyp", "MP4 media"), (b"\x00\x00\x00\x20ftyp", "MP4 media"),
    (b"wOFF", "web font"), (b"wOF2", "web font"),
)


def binary_reason(head: bytes) -> str | None:
    """Why ``head`` (the first bytes of an input) is binary, or None for text.

    UTF-16/32 text has NUL bytes too; it is told apart by its byte-order mark and reported as an
    encoding the tool does not read rather than as a binary file.
    """
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None  # UTF-16 with a BOM: the readers report the encoding, line by line
    for magic, what in _MAGIC:
        if head.startswith(magic):
            if magic == b"MZ" and b"\x00" not in head[:512]:
                continue  # a text file that starts with "MZ"
            return what
    sample = head[:8192]
    if _CONTROL_RE.search(sample) is None or _text_between_nuls(sample):
        return None  # UTF-16 text without a byte-order mark: the readers report the encoding
    if len(sample.translate(None, _TEXT_BYTES)) * 20 > len(sample):
        return "control bytes"  # a stray NUL or one garbled line in a text capture is a finding
    return None


#: Bytes text does not hold (C0 controls other than tab, newlines, form feed and escape; DEL).
_CONTROL = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_CONTROL_RE = re.compile(b"[" + re.escape(_CONTROL) + b"]")
_TEXT_BYTES = bytes(b for b in range(256) if b not in _CONTROL)


def _text_between_nuls(sample: bytes) -> bool:
    """UTF-16 text without a byte-order mark: NULs between printable ASCII."""
    if sample.count(b"\x00") * 4 < len(sample):
        return False
    rest = sample.replace(b"\x00", b"")
    return len(rest.translate(None, bytes(range(0x20, 0x7F)) + b"\t\n\r")) * 20 <= len(rest)
