"""Fast paths of the output masks (mcplint.excerpt) agree with the redaction engine."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint import excerpt

_EDGES = [0, 7, 999, 1000, 4111111111, 5551234567, 123456789012, excerpt.PLAIN_INT - 1, 411111111111]


@settings(deadline=None)  # (the first example imports the redaction engine)
@given(st.one_of(st.integers(-excerpt.PLAIN_INT + 1, excerpt.PLAIN_INT - 1), st.sampled_from(_EDGES),
                 st.sampled_from([-v for v in _EDGES])))
def test_an_id_of_twelve_digits_or_less_is_never_masked(value):
    """mask_id keeps such an integer without asking the engine: the engine keeps its text too."""
    assert excerpt.mask_id(value) == value
    assert excerpt._mask(str(value)) == str(value)


def test_longer_integers_still_go_to_the_engine():
    card = 4111111111111111  # a test card number: personal data to the masker
    assert excerpt.mask_id(card) == excerpt.MASK


def _json_text_by_every_character(value, indent=False):
    """json_text as it was: every character beyond ASCII (and DEL) tested."""
    import orjson

    from mcplint.untrusted import _NOT_ASCII_OR_DEL, _json_escape

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    return _NOT_ASCII_OR_DEL.sub(_json_escape, text)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["§ →", "a\x7fb", "\u202e", "\x85", "é\u2028", "\U0001f600", "\ufeff", "\x1b[31m"])


@settings(deadline=None)
@given(st.recursive(st.none() | st.integers(-2**63, 2**63 - 1) | _TEXT, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=8), st.booleans())
def test_json_text_skips_the_escape_pass_only_when_it_would_change_nothing(value, indent):
    from mcplint.untrusted import json_text

    assert json_text(value, indent=indent) == _json_text_by_every_character(value, indent)


_PIECES = st.sampled_from(["ghp_", "AKIA", "eyJ", "sk-", "xoxb-", "123-45-6789", "123 45 6789", "123456789", "٣",
                           "ssn", "é", "\udcff", " ", "0", "-", "g", "hp_"])


@settings(deadline=None)
@given(st.lists(_PIECES | st.text(max_size=4), max_size=12).map("".join))
def test_the_provider_prefix_pass_finds_a_text_the_trigger_pattern_finds(text):
    """providers.find skips its pattern when the prefix automaton finds no prefix: the two agree."""
    from mcplint.redact import providers

    found = bool(providers._ANY_PREFIX.find_matches_as_indexes(text.encode("utf-8", "surrogatepass")))
    assert found == (providers.TRIGGER.search(text) is not None)


@settings(deadline=None)
@given(st.lists(_PIECES | st.text(max_size=4), max_size=12).map("".join))
def test_digit_shapes_in_bytes_are_those_of_the_text(text):
    """credentials.find looks for SSN shapes in the UTF-8 bytes with digits as 0: as in the text."""
    from mcplint.redact import credentials

    zeros = text.translate(str.maketrans("0123456789", "0000000000"))
    data = text.encode("utf-8", "surrogatepass").translate(credentials._ZEROS)
    for shape in ("000-00-0000", "000 00 0000", "000000000"):
        assert (shape in zeros) == (shape.encode() in data)


@settings(deadline=None)
@given(st.text(alphabet="0123456789", min_size=1, max_size=12) | st.sampled_from(["0", "000000000000", "411111111111"]))
def test_a_numbered_session_label_is_never_masked(label):
    """mask_session keeps the analyzer's numbers (12 digits or fewer) without asking the engine:
    the engine keeps "session <number>" too."""
    assert excerpt.mask_session(label) == label
    assert excerpt.mask_text("session " + label) == "session " + label


def test_a_longer_numbered_session_label_still_goes_to_the_engine():
    assert excerpt.mask_session("4111111111111111") != "4111111111111111"
