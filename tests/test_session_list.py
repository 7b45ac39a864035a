"""The run summary's sessions of a file (report.summary.SessionList) read back as they were put in."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from mcplint.report.summary import SessionInfo, SessionList

_LABELS = st.one_of(st.integers(min_value=0, max_value=10**20).map(str), st.text(max_size=8),
                    st.sampled_from(["0", "00", "007", "-1", "1 (resumed 3)", "٣", "1e3", " 1"]))
_INFOS = st.builds(SessionInfo, _LABELS, st.one_of(st.none(), st.sampled_from(["2025-06-18", "2025-11-25"]), st.text(max_size=4)),
                   st.sampled_from([None, "legacy", "modern"]))


@given(st.lists(_INFOS, max_size=40), st.lists(_INFOS, max_size=10))
def test_sessions_read_back_as_put_in_also_across_processes(first, second):
    """Labels of every kind (numbers of any size, leading zeros, other digits, text) come back as
    the same text, with their version and era, in order; a list extended with another's sessions
    (a file's parts) and a pickled one (a worker's result) too."""
    sessions = SessionList(first)
    assert list(sessions) == first and len(sessions) == len(first)
    sessions.extend(SessionList(second))
    assert list(sessions) == first + second
    assert list(pickle.loads(pickle.dumps(sessions))) == first + second
    assert all(type(info.label) is str for info in sessions)


def test_many_numbered_sessions_take_a_few_bytes_each():
    """Issue 16 (peak RSS flat up to 1 GB): 160,000 numbered sessions of two versions in columns."""
    sessions = SessionList(SessionInfo(str(n), "2025-11-25" if n % 2 else "2025-06-18", "legacy")
                           for n in range(1, 160_001))
    size = sessions._numbers.buffer_info()[1] * sessions._numbers.itemsize \
        + sessions._which.buffer_info()[1] * sessions._which.itemsize
    assert len(sessions) == 160_000 and not sessions._names and len(sessions._facts) == 2
    assert size <= 16 * 160_000
