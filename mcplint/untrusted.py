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
  HTML, no links or autolinks, no emphasis, no table cell ending early; :func:`markdown_fence`: a
  fenced code block of ``shown_lines`` text that no line of it can close.
- :func:`html_text`: ``shown`` text, HTML-escaped (quotes too, for attributes).
- :func:`json_text`: a JSON document that stays lossless, with what ``shown`` escapes written as
  JSON ``\\u`` escapes (JSON itself only requires that of C0 controls; a C1 control or a bidi
  override in raw UTF-8 would still reach a terminal that shows the document).
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Any

import orjson

__all__ = ["github_data", "github_property", "html_text", "json_text", "markdown_code", "markdown_fence", "markdown_text",
           "shown", "shown_finding", "shown_lines", "xml_attr", "xml_text"]


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
    """An XML attribute value, quotes included (as ``xml.sax.saxutils.quoteattr`` quotes it)."""
    text = xml_text(text)
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


# -- GitHub workflow commands (https://docs.github.com/actions/reference/workflow-commands-for-github-actions)

def github_data(text: Any) -> str:
    """The message of a workflow command."""
    return shown(text).replace("%", "%25")


def github_property(text: Any) -> str:
    """A property value (``file=``, ``title=``) of a workflow command."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


# -- Markdown (GitHub Flavored)

# Backslash-escaped punctuation is literal in CommonMark. Escaped here: what opens an HTML tag
# (<), a link or image ([ ]), emphasis (* _ ~), code (`), an entity (&), math ($), or ends a
# table cell (|); the ':' of '://' and the '.' of 'www.' (GFM autolinks); and the backslash.
# Block markers (#, +, -, 1.) need nothing: this text is never at the start of a line.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>&|~$]|:(?=//)|(?<=[wW]{3})\.")


def _escaped(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(lambda match: "\\" + match.group(), text)


# GFM autolinks an e-mail address through escapes and entities; only a code span stops it
_EMAIL_LIKE = re.compile(r"[^\s@]*@\S*")


def markdown_text(text: Any) -> str:
    """Inline Markdown that renders as exactly ``shown(text)``, safe inside a table cell."""
    text = shown(text)
    parts = []
    start = 0
    for match in _EMAIL_LIKE.finditer(text):
        parts.append(_escaped(text[start:match.start()]))
        parts.append(markdown_code(match.group()))
        start = match.end()
    parts.append(_escaped(text[start:]))
    return "".join(parts)


def markdown_code(text: Any) -> str:
    """A code span holding ``shown(text)``, safe inside a table cell (nothing for no text)."""
    text = shown(text)
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end of a span that starts and ends with one: pad then
    pad = " " if "`" in (text[0], text[-1]) or text[0] == text[-1] == " " and text.strip(" ") else ""
    # a pipe ends a table cell even inside a code span (GFM); "\|" is the way to keep it
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def markdown_fence(text: Any, info: str = "") -> str:
    """A fenced code block holding :func:`shown_lines` of ``text`` literally: its fence is longer
    than any run of backticks in the text, so no line of it can close the block. ``info`` (the
    language) is ours, never capture text."""
    text = shown_lines(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# -- HTML

def html_text(text: Any) -> str:
    """Text for an HTML element or a quoted attribute."""
    return html.escape(shown(text), quote=True)


# -- JSON

_NOT_ASCII_OR_DEL = re.compile("[^\x00-\x7e]")


#: The bytes of the characters json_text never escapes (ASCII but DEL): what is left of UTF-8 text
#: without them is whole characters, those it may have to escape
_PLAIN_ASCII = bytes(range(0x7F))


def json_text(value: Any, *, indent: bool = False) -> str:
    """``value`` as JSON text (orjson), with every unprintable character ``\\u``-escaped."""
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    if data.isascii() and b"\x7f" not in data or data.translate(None, _PLAIN_ASCII).decode().isprintable():
        return data.decode()  # (nothing to escape: a report's "§" and "→" are printable)
    return _NOT_ASCII_OR_DEL.sub(_json_escape, data.decode())


def _json_escape(match: re.Match) -> str:
    ch = match.group()
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code > 0xFFFF:  # a surrogate pair, as JSON writes characters beyond the BMP
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"
