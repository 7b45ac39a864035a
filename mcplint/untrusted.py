"""Untrusted text becomes output text here, and nowhere else.

Captures come from servers and clients nobody vetted, and so do file names found by a directory
walk. Whatever they hold reaches mcplint's output, so every reporter and command passes
capture-derived strings through one of these functions, chosen by where the text goes:

- :func:`shown` for terminal and plain text (one line), :func:`shown_lines` where line breaks are
  ours to keep. Every character that Python's ``repr`` would escape is written the way ``repr``
  writes it (``\\x1b``, ``\\u202e``): C0 and C1 controls with ESC and DEL, bidi overrides and
  isolates and the other format characters, line and paragraph separators, surrogates,
  noncharacters. A reader still sees that the capture held an escape; the terminal never runs it.
  Backslashes are left alone, so Windows paths read as they are.
- :func:`xml_text` / :func:`xml_attr`: ``shown`` text, XML-escaped. What XML 1.0 forbids is all
  escaped by ``shown``, so the document always parses.
- :func:`github_data` / :func:`github_property`: GitHub workflow-command escaping of ``shown`` text,
  so an annotation stays one line and a property cannot end early.
- :func:`markdown_text` / :func:`markdown_code`: ``shown`` text that Markdown renders literally: no raw
  HTML, no links or autolinks, no emphasis, no table cell ending early.
- :func:`html_text`: ``shown`` text, HTML-escaped (quotes too, for attributes).

JSON output needs none of this: JSON escapes are safe, and JSON stays lossless.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Any

__all__ = ["github_data", "github_property", "html_text", "markdown_code", "markdown_text", "shown",
           "shown_finding", "shown_lines", "xml_attr", "xml_text"]


def shown(text: Any) -> str:
    """``text`` (``str()`` of it) on one line, with every unprintable character escaped."""
    text = text if type(text) is str else str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def shown_lines(text: Any) -> str:
    """Like :func:`shown`, but line feeds stay line breaks (for multi-line text of our own making)."""
    text = text if type(text) is str else str(text)
    return "\n".join(shown(line) for line in text.split("\n"))


def shown_finding(finding):
    """A copy of ``finding`` whose capture-derived text fields are :func:`shown`."""
    if all(value is None or (type(value) is str and value.isprintable()) for value in (
            finding.message, finding.path, finding.session, finding.method, finding.excerpt, finding.hint,
            finding.id if type(finding.id) is str else None)) and all(r.note.isprintable() for r in finding.related):
        return finding
    return replace(
        finding,
        message=shown(finding.message), path=shown(finding.path),
        session=_maybe(finding.session), method=_maybe(finding.method),
        excerpt=_maybe(finding.excerpt), hint=_maybe(finding.hint),
        id=shown(finding.id) if type(finding.id) is str else finding.id,
        related=[replace(r, note=shown(r.note)) for r in finding.related],
    )


def _maybe(text: str | None) -> str | None:
    return None if text is None else shown(text)


# -- XML (JUnit)

def xml_text(text: Any) -> str:
    """Character data for an XML element."""
    return html.escape(shown(text), quote=False)


def xml_attr(text: Any) -> str:
    """An XML attribute value, quotes included."""
    return '"' + html.escape(shown(text), quote=True) + '"'


# -- GitHub workflow commands (https://docs.github.com/actions/reference/workflow-commands-for-github-actions)

def github_data(text: Any) -> str:
    """The message of a workflow command."""
    return shown(text).replace("%", "%25")


def github_property(text: Any) -> str:
    """A property value (``file=``, ``title=``) of a workflow command."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


# -- Markdown (GitHub Flavored)

# Every ASCII punctuation character may be backslash-escaped in CommonMark, and an escaped one is
# literal: no HTML tag (<), link or image ([ ] ( ) !), autolink (: . @ after escaping the trigger),
# emphasis (* _ ~), code (`), heading or list marker (# + - .), entity (&) or table cell end (|).
_MARKDOWN_SPECIAL = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


# GFM autolinks an e-mail address through escapes and entities; only a code span stops it
_EMAIL_LIKE = re.compile(r"[^\s@]*@\S*")


def markdown_text(text: Any) -> str:
    """Inline Markdown that renders as exactly ``shown(text)``, safe inside a table cell."""
    text = shown(text)
    parts = []
    start = 0
    for match in _EMAIL_LIKE.finditer(text):
        parts.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[start:match.start()]))
        parts.append(markdown_code(match.group()))
        start = match.end()
    parts.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[start:]))
    return "".join(parts)


def markdown_code(text: Any) -> str:
    """A code span holding ``shown(text)``, safe inside a table cell."""
    text = shown(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip(" ") else ""
    # a pipe ends a table cell even inside a code span (GFM); "\|" is the way to keep it
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


# -- HTML

def html_text(text: Any) -> str:
    """Text for an HTML element or a quoted attribute."""
    return html.escape(shown(text), quote=True)
