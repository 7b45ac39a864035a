"""model.new_record makes the Record that Record(...) makes of the same message fields."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from mcplint.model import MESSAGE_FIELDS, Kind, Record, new_record

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.binary(max_size=5),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.sampled_from(list(Kind)))


@given(st.tuples(*[_VALUES] * len(MESSAGE_FIELDS)))
def test_new_record_is_the_record_of_the_same_fields(values):
    made, plain = new_record(*values), Record(*values)
    assert type(made) is Record
    for field in dataclasses.fields(Record):
        assert getattr(made, field.name) is getattr(plain, field.name), field.name


def test_new_record_takes_the_leading_fields_in_order():
    assert [field.name for field in dataclasses.fields(Record)][:len(MESSAGE_FIELDS)] == list(MESSAGE_FIELDS)
