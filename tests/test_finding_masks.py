"""Fast paths of the output masks (mcplint.excerpt) agree with the redaction engine."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcplint import excerpt

_EDGES = [0, 7, 999, 1000, 4111111111, 5551234567, 123456789012, excerpt.PLAIN_INT - 1, 411111111111]


@given(st.one_of(st.integers(-excerpt.PLAIN_INT + 1, excerpt.PLAIN_INT - 1), st.sampled_from(_EDGES),
                 st.sampled_from([-v for v in _EDGES])))
def test_an_id_of_twelve_digits_or_less_is_never_masked(value):
    """mask_id keeps such an integer without asking the engine: the engine keeps its text too."""
    assert excerpt.mask_id(value) == value
    assert excerpt._mask(str(value)) == str(value)


def test_longer_integers_still_go_to_the_engine():
    card = 4111111111111111  # a test card number: personal data to the masker
    assert excerpt.mask_id(card) == excerpt.MASK
