"""Facts several rules compute from the same record, worked out once.

The engine hands one record to all its rules in a row, so a fact of the record that three rules
need is computed by the first and read by the others (:func:`per_record`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcplint.model import Record

T = TypeVar("T")


def per_record(fact: Callable[[Record], T]) -> Callable[[Record], T]:
    """``fact(record)``, computed once per record: the answer for the latest record is kept
    (as one tuple, so that threads linting side by side never mix records and answers)."""
    last: list[tuple[Any, Any]] = [(None, None)]

    @functools.wraps(fact)
    def memo(record: Record) -> T:
        seen, value = last[0]
        if seen is not record:
            value = fact(record)
            last[0] = (record, value)
        return value

    return memo


def per_recent_records(fact: Callable[[Record], T]) -> Callable[[Record], T]:
    """:func:`per_record` for a fact asked of two records in turn (a request and an earlier one
    it is compared with, by several rules): the answers for the two latest records are kept."""
    last: list[tuple[Any, Any, Any, Any]] = [(None, None, None, None)]

    @functools.wraps(fact)
    def memo(record: Record) -> T:
        newest, value, older, older_value = last[0]
        if newest is record:
            return value
        if older is record:
            return older_value
        answer = fact(record)
        last[0] = (record, answer, newest, value)
        return answer

    return memo
