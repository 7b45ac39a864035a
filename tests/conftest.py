import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Rule crashes are caught by the engine in production (reported, exit 2); in tests they must fail loudly.
import os

os.environ.setdefault("MCPLINT_DEBUG", "1")
