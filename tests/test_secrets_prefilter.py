"""The cheap tests that decide whether a line is worth a secret rule's walk (rules/_secrets.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.rules._secrets import LOG_EXTRA, has_log_extra

#: LG006's extra literals as the regular expression they replaced
_REFERENCE = re.compile(rb"@|\\[u/]|\xc4[\xb0\xb1]|\xc5\xbf|\xe2\x84\xaa")

_PIECES = st.sampled_from([*LOG_EXTRA, b"\\", b"\\\\", b"\xc4", b"\xc5", b"\xe2\x84", b"\xb0", b"u", b"/", b"x",
                           "é".encode(), "İ".encode(), "K".encode(), b'{"data":"', b'"}'])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.binary(max_size=6)), max_size=12).map(b"".join))
def test_log_extra_is_the_regular_expression(data):
    assert has_log_extra(data) == (_REFERENCE.search(data) is not None)
