import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Rule crashes are caught by the engine in production (reported, exit 2); in tests they must fail loudly.
import os

os.environ.setdefault("MCPLINT_DEBUG", "1")

# The wire-schema disk cache (mcplint/rules/_schema_cache.py) goes to a directory of this run:
# tests never read a cache an earlier run (of other code) left behind.
if "MCPLINT_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["MCPLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcplint-test-cache-")
