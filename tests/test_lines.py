"""Reading lines by blocks (lines.Lines): the same lines, cuts and literal bits as reading
them one at a time, wherever the blocks end."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.input import lines as lines_module
from mcplint.input.lines import CUT_HEAD_BYTES, Cut, Lines, parse_ts
from mcplint.input.literal_scan import MAX_SCAN, signs


def one_at_a_time(data: bytes, limit: int) -> list[tuple[bytes, Cut | bool]]:
    """The reference: every line in turn, cut when longer than ``limit``."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [(line[:CUT_HEAD_BYTES], Cut(len(line), limit)) if len(line) > limit else (line, False)
            for line in lines]


_PIECES = st.sampled_from([b"\n", b"\r\n", b'{"a":1}', b"x" * 37, b"apikey", b"progressToken", b"://", b"", b"\n\n",
                           b"Bearer ", b"y" * 300])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(b"".join), st.integers(1, 64), st.integers(1, 400),
       st.sampled_from([0, 8, 1 << 20]))
def test_blocks_give_the_lines_of_one_at_a_time(data, block, limit, search_from):
    """(``search_from``: blocks split by readlines, by bytes.split, or by either as their lines go.)"""
    original = lines_module.BLOCK_BYTES, lines_module.SEARCH_FROM
    lines_module.BLOCK_BYTES, lines_module.SEARCH_FROM = block, search_from
    try:
        got = list(Lines(io.BytesIO(data), limit))
        bits = [found for _, found in Lines(io.BytesIO(data), limit).tagged()]
    finally:
        lines_module.BLOCK_BYTES, lines_module.SEARCH_FROM = original
    assert got == one_at_a_time(data, limit)
    assert bits == [None if cut else signs(line) for line, cut in got]


def test_head_does_not_take_the_lines():
    data = b"".join(b'{"n":%d}\n' % n for n in range(100))
    lines = Lines(io.BytesIO(data))
    assert [line for line, _ in lines.head(3, 1 << 20)] == [b'{"n":0}', b'{"n":1}', b'{"n":2}']
    assert len(lines.head(200, 1 << 20)) == 100
    assert [line for line, _ in lines] == data.split(b"\n")[:-1]


def test_a_pipe_hands_over_each_line_as_it_comes():
    """read1: a line is given as soon as its newline arrived, not when a block is full."""
    class Pipe(io.RawIOBase):
        def __init__(self, chunks):
            self.chunks = list(chunks)

        def readable(self):
            return True

        def readinto(self, buffer):
            if not self.chunks:
                return 0
            chunk = self.chunks.pop(0)
            buffer[:len(chunk)] = chunk
            return len(chunk)

    pipe = Pipe([b'{"a":1}\n', b'{"b":2}\n'])
    lines = iter(Lines(io.BufferedReader(pipe)))
    assert next(lines) == (b'{"a":1}', False)
    assert pipe.chunks == [b'{"b":2}\n']  # the second line was not waited for


def test_lines_longer_than_the_scan_are_left_to_the_rules():
    long = b"a" * (MAX_SCAN + 1)
    lines = Lines(io.BytesIO(b"{}\n" + long + b"\napikey\n"))
    assert [signs for _, signs in lines.tagged()] == [0, None, 1]


def _parse_ts_plainly(ts):
    """The reference: an ISO 8601 string's timestamp, a number (not a bool) as seconds, else None."""
    if isinstance(ts, str):
        try:
            return datetime.fromisoformat(ts).timestamp()
        except ValueError:
            return None
    return float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None


class _Text(str):
    pass


def _z(moment, timespec: str) -> str:
    return moment.isoformat(timespec=timespec) + "Z"


#: the usual shape of a capture's timestamps, YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z, and its near misses
_USUAL = st.builds(_z, st.datetimes(), st.sampled_from(["seconds", "milliseconds", "microseconds"]))
_NEAR = st.builds(lambda ts, at, char: ts[:at] + char + ts[at + 1:], _USUAL, st.integers(0, 26),
                  st.sampled_from(list("0123456789:-.TZ +\u0663x")))


@given(st.one_of(st.datetimes(timezones=st.just(UTC)).map(lambda moment: moment.isoformat()),
                 st.datetimes().map(lambda moment: moment.isoformat(timespec="milliseconds") + "Z"),
                 _USUAL, _NEAR, _NEAR.map(lambda ts: ts[:-2] + "Z"),
                 st.text(max_size=30), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
                 st.lists(st.integers(), max_size=2)))
def test_parse_ts_reads_what_the_plain_reading_reads(ts):
    assert parse_ts(ts) == _parse_ts_plainly(ts)
    if isinstance(ts, str):
        assert parse_ts(_Text(ts)) == _parse_ts_plainly(ts)  # a str subclass is still a string
