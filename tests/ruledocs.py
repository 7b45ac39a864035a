"""Parse rule pages (``rules/<CODE>-<name>.md``) into sections and annotated transcripts.

Examples are ```transcript blocks, or ```har blocks for HTTP rules: a HAR document (one entry
per few lines) run through the HAR reader, annotated like transcripts at the end of the entry's
first line, with ``# init <version> [session=<id>] [C=<caps>] [S=<caps>]`` for the Streamable
HTTP handshake (see ``tests/harbuilder.py``). Options of the page's rule may follow the fence's
language, as ``key=value`` pairs (```transcript max-pending=2): the example runs with them;
``max-line-bytes=N`` is the reader's line limit (``LintOptions.max_line_bytes``) instead.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from mcplint.analysis.engine import Engine
from mcplint.input.lines import MAX_LINE_BYTES, iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import read_transcript
from mcplint.model import Finding

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"

_FENCE = re.compile(r"^```(transcript|har)([^\n]*)\n(.*?)^```", re.S | re.M)
_EXPECT = re.compile(r"\s{2,}#\s*(error|warning|info):\s*\[([A-Za-z0-9_, -]*)\]\s*$")
_SECTION = re.compile(r"^## (.+?)\s*$", re.M)


@dataclass
class Example:
    section: str
    text: str
    # (line, code) -> severity
    expected: dict[tuple[int, str], str] = field(default_factory=dict)
    kind: str = "transcript"  # or "har"
    options: dict[str, str] = field(default_factory=dict)  # options of the page's rule (hyphenated names)
    max_line_bytes: int = MAX_LINE_BYTES  # the reader's line limit

    @property
    def codes(self) -> set[str]:
        return {code for _, code in self.expected}


@dataclass
class Page:
    path: Path
    title: str
    sections: dict[str, str]
    examples: list[Example]


def parse_page(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    title = text.splitlines()[0] if text else ""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        sections[match.group(1)] = text[match.end():end]
    examples = []
    for name in ("Example", "Use instead"):
        for block in _FENCE.finditer(sections.get(name, "")):
            options = dict(pair.split("=", 1) for pair in block.group(2).split())
            limit = int(options.pop("max-line-bytes", MAX_LINE_BYTES))
            example = Example(name, block.group(3), kind=block.group(1), options=options, max_line_bytes=limit)
            for number, line in enumerate(example.text.splitlines(), 1):
                expect = _EXPECT.search(line)
                if expect:
                    for code in expect.group(2).split(","):
                        if code.strip():
                            example.expected[(number, code.strip())] = expect.group(1)
            examples.append(example)
    return Page(path, title, sections, examples)


def run_transcript(text: str, engine: Engine | None = None, max_line_bytes: int = MAX_LINE_BYTES) -> list[Finding]:
    """Lint a transcript snippet with every rule."""
    engine = engine or Engine()
    frames = read_transcript(iter_lines(io.BytesIO(text.encode("utf-8")), max_line_bytes))
    return list(engine.lint_records(Parser("<example>").records(frames), "<example>"))


def run_example(example: Example, engine: Engine | None = None) -> list[Finding]:
    """Lint a page example (transcript or HAR) with every rule."""
    if example.kind == "har":
        from mcplint.input.formats.har import read_har
        from tests.harbuilder import expand_example

        engine = engine or Engine()
        frames = read_har(iter_lines(io.BytesIO(expand_example(example.text).encode("utf-8")), example.max_line_bytes))
        return list(engine.lint_records(Parser("<example>").records(frames), "<example>"))
    return run_transcript(example.text, engine, example.max_line_bytes)
