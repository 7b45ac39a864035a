"""Per-record memo of facts several rules ask about (``mcplint.rules._memo``)."""

from __future__ import annotations

from mcplint.model import Kind, Record
from mcplint.rules._memo import per_recent_records, per_record


def test_a_fact_is_computed_once_per_record_and_again_for_the_next():
    calls = []

    @per_record
    def size(record):
        calls.append(record.line)
        return len(record.data)

    first, second = Record("x", 1, Kind.TEXT, b"ab"), Record("x", 2, Kind.TEXT, b"abc")
    assert [size(first), size(first), size(second), size(second), size(first)] == [2, 2, 3, 3, 2]
    assert calls == [1, 2, 1]
    assert size.__name__ == "size"


def test_a_fact_of_two_records_in_turn_is_computed_once_each():
    calls = []

    @per_recent_records
    def size(record):
        calls.append(record.line)
        return len(record.data)

    first, second, third = (Record("x", n, Kind.TEXT, b"a" * n) for n in (1, 2, 3))
    assert [size(first), size(second), size(first), size(second), size(third), size(first)] == [1, 2, 1, 2, 3, 1]
    assert calls == [1, 2, 3, 1]
    assert size.__name__ == "size"
