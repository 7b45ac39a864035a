"""CI formats: SARIF 2.1.0, GitHub workflow commands, GitLab Code Quality, JUnit XML."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from urllib.parse import quote

from mcplint import __version__
from mcplint.model import Severity
from mcplint.report.fingerprint import fingerprints
from mcplint.report.json import write_array
from mcplint.rules import load
from mcplint.rules.pages import help_url, read_page, sections
from mcplint.untrusted import github_data, github_property, json_text, xml_attr, xml_text

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITLAB_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _slashed(path: str) -> str:
    return path.replace("\\", "/")


def _uri(path: str) -> str:
    """A file's path as a URI reference (SARIF ``artifactLocation.uri``): forward slashes, and
    what a URI cannot hold raw (spaces, ``%``, controls, non-ASCII) percent-encoded."""
    return quote(_slashed(path), safe="/!$&'()*+,;=@-._~")


def _sarif_rule(cls) -> dict:
    page = read_page(cls.code, cls.name) or ""
    parts = sections(page)
    full = " ".join(p for p in (parts.get("What it does", ""), parts.get("Why is this bad?", "")) if p)
    return {
        "id": cls.code,
        "name": cls.name,
        "shortDescription": {"text": cls.summary()},
        "fullDescription": {"text": full or cls.summary()},
        "help": {"text": cls.hint or cls.summary(), "markdown": page or cls.summary()},
        "helpUri": help_url(cls.code, cls.name),
        "defaultConfiguration": {"level": _SARIF_LEVEL[cls.severity]},
        "properties": {"tags": [cls.category(), cls.level], "precision": "medium" if cls.confidence == "low" else "high"},
    }


def sarif(findings, summary, out) -> None:
    registry = load()
    codes = sorted({f.code for f in findings})
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcplint",
                "version": __version__,
                "informationUri": "https://github.com/mcplint/mcplint",
                "rules": [_sarif_rule(registry[code]) for code in codes],
            }},
            "columnKind": "unicodeCodePoints",
            "results": [],  # written one at a time (write_array), where this empty array stands
        }],
    }
    head, _, tail = json_text(document, indent=True).rpartition('"results": []')
    out.write(head + '"results": ')
    write_array(out, _sarif_results(findings, {code: i for i, code in enumerate(codes)}), depth=3)
    out.write(tail + "\n")


def _sarif_results(findings, index: dict[str, int]) -> Iterator[dict]:
    uris: dict[str, str] = {}  # (a file's findings share its path: quoted once)
    for finding, print_ in zip(findings, fingerprints(findings)):
        uri = uris.get(finding.path) or uris.setdefault(finding.path, _uri(finding.path))
        result = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": {"startLine": finding.line},
            }}],
            "partialFingerprints": {"mcplint/v1": print_},
            "properties": {k: v for k, v in {
                "confidence": finding.confidence, "session": finding.session, "direction": finding.direction,
                "method": finding.method, "party": finding.party, "spec": finding.spec,
            }.items() if v is not None},
        }
        if finding.related:
            result["relatedLocations"] = [
                {"id": i, "message": {"text": rel.note}, "physicalLocation": {
                    "artifactLocation": {"uri": uri}, "region": {"startLine": rel.line}}}
                for i, rel in enumerate(finding.related)]
        yield result


def github(findings, summary, out) -> None:
    for f in findings:
        command = _GITHUB_COMMAND[f.severity]
        title = github_property(f"{f.code} {f.name}")
        out.write(f"::{command} file={github_property(_slashed(f.path))},line={f.line},title={title}::"
                  f"{github_data(f.message)}\n")


def gitlab(findings, summary, out) -> None:
    write_array(out, ({
        "description": f"{f.code} {f.message}",
        "check_name": f.code,
        "fingerprint": print_,
        "severity": _GITLAB_SEVERITY[f.severity],
        "location": {"path": _slashed(f.path), "lines": {"begin": f.line}},
    } for f, print_ in zip(findings, fingerprints(findings))))
    out.write("\n")


def junit(findings, summary, out) -> None:
    by_path = defaultdict(list)
    for finding in findings:
        by_path[finding.path].append(finding)
    paths = list(summary.formats) or sorted(by_path)
    for path in sorted(by_path):
        if path not in paths:
            paths.append(path)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<testsuites name="mcplint" tests="{max(len(findings), 1)}" failures="{len(findings)}">\n')
    for path in paths:
        items = by_path.get(path, [])
        out.write(f'  <testsuite name={xml_attr(path)} tests="{max(len(items), 1)}" failures="{len(items)}">\n')
        if not items:
            out.write(f'    <testcase name="mcplint" classname={xml_attr(path)}/>\n')
        for f in items:
            name = xml_attr(f"{f.code} line {f.line}")
            out.write(f"    <testcase name={name} classname={xml_attr(path)} file={xml_attr(path)} line=\"{f.line}\">\n")
            out.write(f"      <failure message={xml_attr(f.message)} type={xml_attr(f.severity.value)}>"
                      f"{xml_text(f'{path}:{f.line}: {f.code} {f.name}: {f.message}')}</failure>\n")
            out.write("    </testcase>\n")
        out.write("  </testsuite>\n")
    out.write("</testsuites>\n")
