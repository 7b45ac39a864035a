"""Where ``check``'s findings go (``probe`` sends its own the same way): the settings applied,
what they hide counted, and each output (the main one, ``--report FORMAT=PATH``) rendered."""

from __future__ import annotations

from mcplint.commands.common import OutputFile, fail
from mcplint.config.settings import Settings
from mcplint.model import Finding, Severity
from mcplint.report import COLORED, REPORTERS
from mcplint.report.summary import RunSummary
from mcplint.report.terminal import color_wanted
from mcplint.report.text import statistics, statistics_json


def at_least(findings, severity: Severity) -> list:
    return [f for f in findings if f.severity.rank >= severity.rank]


def count_of(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def report_spec(spec: str) -> tuple[str, str]:
    fmt, sep, path = spec.partition("=")
    if not sep or not path or fmt not in REPORTERS:
        fail(f"--report {spec!r}: expected FORMAT=PATH with FORMAT one of {', '.join(sorted(REPORTERS))}")
    return fmt, path


def render(fmt: str, findings, summary, out, color: str, quiet: bool) -> None:
    """Render ``findings`` in ``fmt`` to the open text stream ``out``."""
    use_color = color_wanted(color, out)
    if fmt == "statistics":
        statistics(findings, summary, out, color=use_color, quiet=quiet)
    elif fmt == "statistics-json":
        statistics_json(findings, summary, out)
    elif fmt in COLORED:
        REPORTERS[fmt](findings, summary, out, color=use_color, quiet=quiet)
    else:
        REPORTERS[fmt](findings, summary, out)


def report_outputs(reports: tuple[str, ...]) -> list[tuple[str, OutputFile]]:
    """The ``--report FORMAT=PATH`` outputs (a malformed one is a one-line error)."""
    return [(fmt, OutputFile(path, what="report file")) for fmt, path in map(report_spec, reports)]


def publish(reported: list[Finding], summary: RunSummary, settings: Settings, outputs, color: str, quiet: bool,
            after=None) -> None:
    """Render the ``reported`` findings (the settings applied, a baseline too) that reach
    ``--min-severity`` to every output (colour only on the first) and commit them; the hidden
    ones are counted for the summary. ``after(fmt, stream)`` may add to an output."""
    visible = at_least(reported, settings.min_severity)
    summary.fail_on = settings.fail_on
    for f in reported:
        if f.severity.rank < settings.min_severity.rank:
            summary.hidden[f.severity] = summary.hidden.get(f.severity, 0) + 1
    for index, (fmt, out) in enumerate(outputs):
        render(fmt, visible, summary, out.stream, color if index == 0 else "never", quiet)
        if after is not None:
            after(fmt, out.stream)
        out.commit()
