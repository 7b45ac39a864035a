"""Markdown for pull-request comments and issue reports."""

from __future__ import annotations

from mcplint.report.text import summary_line
from mcplint.rules.pages import help_url
from mcplint.untrusted import markdown_code, markdown_text


def markdown(findings, summary, out) -> None:
    if not findings:
        out.write(f"**mcplint**: {summary_line(findings, summary)}\n")
        return
    out.write(f"### mcplint\n\n{summary_line(findings, summary)}\n\n")
    out.write("| File | Line | Severity | Rule | Message | Fault |\n|---|---:|---|---|---|---|\n")
    for f in findings:
        rule = f"[{f.code}]({help_url(f.code, f.name)}) {f.name}"
        heuristic = " *(heuristic)*" if f.confidence == "low" else ""
        out.write(f"| {markdown_code(f.path)} | {f.line} | {f.severity.value} | {rule} | "
                  f"{markdown_text(f.message)}{heuristic} | {f.party or ''} |\n")
