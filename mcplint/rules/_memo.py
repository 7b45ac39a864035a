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
