"""mitmproxy flow files (``mitmdump -w``): sniffed without mitmproxy, a one-line error naming the
extra where it is missing, and with it the same frames and findings as the HAR of the same traffic.

mitmproxy is an optional extra, not in the test extra (it pins older h11 and cryptography than the
SDK's HTTP stack wants): where it is not installed, the last test installs it aside and runs this
module and the sample's golden findings again in a child with it on the path."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.api import lint_paths
from mcplint.cli import main
from mcplint.input.readers import BinaryInput, UnknownFormat, open_frames
from tests.formats_helpers import SAMPLES, sniffed

SAMPLE = SAMPLES / "mitmproxy-streamable-2025-11-25.flow"
#: as tests/test_e2e_http.py's "sse-2025-11-25" run: the SDK's deviations and the scenario's mistake
EXPECTED = Counter({("CAP003", "notifications/message"): 3, ("TL013", "tools/call"): 1, ("HT019", None): 1,
                    ("CN006", "tools/call"): 1, ("HX007", "tools/call"): 1, ("TL006", "tools/call"): 1})


def run(args, stdin=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin)


@pytest.fixture
def without_mitmproxy(monkeypatch):
    """mitmproxy not importable, whether or not it is installed."""
    for name in [n for n in sys.modules if n == "mitmproxy" or n.startswith("mitmproxy.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mitmproxy", None)


def test_a_flow_file_sniffs_as_mitmproxy_without_mitmproxy(without_mitmproxy):
    assert sniffed(SAMPLE.read_bytes()) == "mitmproxy"


def test_without_the_extra_check_names_it_in_one_line(without_mitmproxy):
    result = run(["check", SAMPLE])
    assert result.exit_code == 2
    assert result.stderr == (f"mcplint: error: {SAMPLE}: reading a mitmproxy flow file needs mitmproxy: "
                             "pip install 'mcplint[mitmproxy]'\n")
    with open(SAMPLE, "rb") as handle, pytest.raises(UnknownFormat) as caught:
        open_frames(handle, strict=True)
    assert not isinstance(caught.value, BinaryInput)


def test_other_binary_files_are_still_binary():
    with pytest.raises(BinaryInput):
        open_frames(io.BytesIO(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 4), strict=True)
    with pytest.raises(BinaryInput):  # digits and a colon alone are no flow
        open_frames(io.BytesIO(b"12:\x00\x01\x02\x03" + bytes(range(256)) * 4), strict=True)


# -- with mitmproxy ---------------------------------------------------------------------------------
@pytest.fixture
def mitm():
    return pytest.importorskip("mitmproxy.io", reason="the optional 'mitmproxy' extra")


def test_sample_findings(mitm):
    findings, summary = lint_paths([str(SAMPLE)])
    assert Counter((f.code, f.method) for f in findings) == EXPECTED
    assert summary.formats == {str(SAMPLE): "mitmproxy"} and summary.session_count() == 1
    with open(SAMPLE, "rb") as handle:
        flows = sum(1 for _ in mitm.FlowReader(handle).stream())
    assert {f.line for f in findings} <= set(range(1, flows + 1))  # lines are flow numbers


def _har_of(flow_path, har_path, mitm) -> None:
    from mcplint.input.formats.mitmproxy import har_entry

    with open(flow_path, "rb") as handle:
        entries = [har_entry(flow) for flow in mitm.FlowReader(handle).stream()]
    har_path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": entries}},
                                   indent=2), encoding="utf-8")


def test_flows_are_judged_as_the_har_of_the_same_traffic(mitm, tmp_path):
    har = tmp_path / "same.har"
    _har_of(SAMPLE, har, mitm)
    flow_findings, _ = lint_paths([str(SAMPLE)])
    har_findings, _ = lint_paths([str(har)])
    key = lambda f: (f.code, f.method, f.id, f.direction, f.message)  # noqa: E731
    assert sorted(map(key, flow_findings)) == sorted(map(key, har_findings))


def test_convert_to_capture_round_trips(mitm, tmp_path):
    out = tmp_path / "sample.mcplog"
    result = run(["convert", "--to", "capture", "-o", out, SAMPLE])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    messages = [r for r in records if r["dir"] in ("c2s", "s2c")]
    assert messages and {r["dir"] for r in messages} == {"c2s", "s2c"}
    again = run(["convert", "--to", "capture", out])
    without_http = [{k: v for k, v in r.items() if k != "http"} for r in records]
    assert [json.loads(line) for line in again.output.splitlines()] == without_http
    converted, _ = lint_paths([str(out)])
    http_only = {"HT019"}  # the HTTP facts stay behind in the conversion
    assert Counter((f.code, f.method) for f in converted) == Counter(
        {k: n for k, n in EXPECTED.items() if k[0] not in http_only})


def test_streamed_body_without_the_addon_is_not_recorded(mitm, tmp_path):
    """A streamed SSE answer that mitmdump saved without its body: its exchange is judged, its
    messages are absent, nothing crashes."""
    from mitmproxy.io import FlowReader, FlowWriter

    with open(SAMPLE, "rb") as handle:
        flows = list(FlowReader(handle).stream())
    for flow in flows:
        if flow.response is not None and flow.response.headers.get("content-type", "").startswith("text/event-stream"):
            flow.response.raw_content = None
    path = tmp_path / "streamed.flow"
    with open(path, "wb") as handle:
        writer = FlowWriter(handle)
        for flow in flows:
            writer.add(flow)
    result = run(["check", "--output-format", "json", path])
    assert result.exit_code in (0, 1), result.output
    findings = json.loads(result.output)
    assert all(f["direction"] != "s2c" or f["method"] is None for f in findings)  # no server message was read


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=20, max_value=SAMPLE.stat().st_size - 1))
def test_a_cut_flow_file_is_reported_not_crashed(mitm, tmp_path, cut):
    path = tmp_path / "cut.flow"
    path.write_bytes(SAMPLE.read_bytes()[:cut])
    result = run(["check", "--output-format", "json", path])
    assert result.exit_code in (0, 1), result.output
    try:
        with open(path, "rb") as handle:
            whole = sum(1 for _ in mitm.FlowReader(handle).stream()) >= 0  # cut between two flows
    except Exception:
        whole = False
    reported = [f for f in json.loads(result.output) if "unreadable mitmproxy flow file" in f["message"]]
    assert len(reported) == (0 if whole else 1)


def test_recorded_live_through_mitmdump(mitm, tmp_path):
    """The SDK's client and server over Streamable HTTP through a real ``mitmdump -w`` with the
    addon: the flow file gives the findings of the sample."""
    pytest.importorskip("uvicorn", reason="the SDK's HTTP server")
    from tests.e2e import mitm_record

    if mitm_record.mitmdump() is None:
        pytest.skip("mitmdump not installed")
    flow = tmp_path / "live.flow"
    facts = mitm_record.record(flow)
    assert facts["version"] == "2025-11-25"
    findings, _ = lint_paths([str(flow)])
    assert Counter((f.code, f.method) for f in findings) == EXPECTED


def test_header_bytes_that_are_not_utf8(mitm, tmp_path):
    from mitmproxy.io import FlowReader, FlowWriter

    with open(SAMPLE, "rb") as handle:
        flows = list(FlowReader(handle).stream())
    flows[0].request.headers.fields += ((b"X-Odd", b"caf\xe9"),)
    path = tmp_path / "odd.flow"
    with open(path, "wb") as handle:
        writer = FlowWriter(handle)
        for flow in flows:
            writer.add(flow)
    findings, _ = lint_paths([str(path)])
    assert Counter((f.code, f.method) for f in findings) == EXPECTED


@pytest.mark.skipif(importlib.util.find_spec("mitmproxy") is not None, reason="the extra is installed: ran above")
def test_with_the_extra_installed_aside(tmp_path):
    """The tests above that need mitmproxy, and the sample's golden findings, in a child with
    mitmproxy installed aside from the registry (skipped where it cannot be reached)."""
    target = tmp_path / "mitmproxy"
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "--target", str(target), "mitmproxy>=10"], capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("installing mitmproxy took too long")
    if done.returncode != 0 or not (target / "mitmproxy").is_dir():
        pytest.skip("mitmproxy could not be installed (no package registry?)")
    root = SAMPLES.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(root)]),
           "PATH": os.pathsep.join([str(target / "bin"), os.environ.get("PATH", "")])}
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                            "tests/test_formats_mitmproxy.py", "tests/test_findings_golden.py", "-k", "mitmproxy"],
                           cwd=root, env=env, capture_output=True, text=True, timeout=600)
    summary = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else child.stderr[-2000:]
    assert child.returncode == 0, child.stdout[-4000:] + child.stderr[-2000:]
    assert "skipped" not in summary, child.stdout[-2000:]  # every test ran, the live mitmdump recording too
