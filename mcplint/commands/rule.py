"""``mcplint rule``: a rule's documentation page (by code or name), or the list of every rule."""

from __future__ import annotations

import orjson

from mcplint import protocol
from mcplint.commands.common import OutputFile, fail
from mcplint.report.terminal import color_wanted
from mcplint.rules import load
from mcplint.rules.pages import read_page


def run_rule(selector, show_all, output_format, output_file, color) -> None:
    """``mcplint rule`` with the options it was given (see ``mcplint rule --help``)."""
    from mcplint.report.terminal import styler

    registry = load()
    style = styler(color_wanted(color) and output_format == "text" and not output_file)
    if show_all or not selector:
        rows = [cls for _, cls in sorted(registry.items())]
        if output_format == "json":
            text = orjson.dumps([_rule_meta(cls) for cls in rows], option=orjson.OPT_INDENT_2).decode()
        elif output_format == "markdown":
            lines = ["| Code | Name | Severity | Level | Versions | Summary |", "|---|---|---|---|---|---|"]
            for cls in rows:
                meta = _rule_meta(cls)
                lines.append(f"| {cls.code} | {cls.name} | {meta['severity']} | {cls.level} | "
                             f"{meta['versions']} | {cls.summary()} |")
            text = "\n".join(lines)
        else:
            text = "\n".join(f"{style(f'{cls.code:<7}', bold=True)} {cls.name:<44} {cls.severity.value:<8} "
                             f"{cls.summary()}" for cls in rows)
        _emit(text, output_file)
        return
    by_name = {cls.name: cls for cls in registry.values()}
    cls = registry.get(selector.upper()) or by_name.get(selector)
    if cls is None:
        fail(f"no rule {selector!r} (mcplint rule --all lists them)")
    if output_format == "json":
        _emit(orjson.dumps(_rule_meta(cls), option=orjson.OPT_INDENT_2).decode(), output_file)
        return
    page = read_page(cls.code, cls.name)
    _emit(page if page else f"{cls.name} ({cls.code})\n\n{cls.summary()}", output_file)


def _rule_meta(cls) -> dict:
    versions = [v for v in protocol.VERSIONS if v in cls.versions]
    return {
        "code": cls.code,
        "name": cls.name,
        "category": cls.category(),
        "severity": cls.severity.value,
        "level": cls.level,
        "confidence": cls.confidence,
        "versions": "all" if len(versions) == len(protocol.VERSIONS) else ", ".join(versions),
        "summary": cls.summary(),
        "spec": cls.spec,
        "hint": cls.hint,
    }


def _emit(text: str, output_file: str | None) -> None:
    """Print ``text`` (with a final newline) to stdout or, atomically, to ``output_file``."""
    with OutputFile(output_file) as out:
        out.stream.write(text if text.endswith("\n") else text + "\n")
