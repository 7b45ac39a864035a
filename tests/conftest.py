import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Rule crashes are caught by the engine in production (reported, exit 2); in tests they must fail loudly.
import os

os.environ.setdefault("MCPLINT_DEBUG", "1")

# The wire-schema disk cache (mcplint/rules/_schema_cache.py) goes to a directory of this run:
# tests never read a cache an earlier run (of other code) left behind.
if "MCPLINT_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["MCPLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcplint-test-cache-")



@pytest.fixture
def feature_verdicts(monkeypatch):
    """``feature_verdicts(name)``: a dict that gets, for every record the engine asks the family
    feature ``name``'s clean test of from then on in the test, ``line -> verdict`` (a gate's tests
    hold it false wherever a rule it gates reports)."""
    from mcplint.rules import _base, all_rules

    all_rules()  # (the families register their features as they load)

    def watch(name: str) -> dict:
        verdicts: dict = {}
        kind, methods, clean = _base.FAMILY_FEATURES[name]

        def watched(record):
            verdicts[record.line] = verdict = clean(record)
            return verdict
        monkeypatch.setitem(_base.FAMILY_FEATURES, name, (kind, methods, watched))
        return verdicts
    return watch
