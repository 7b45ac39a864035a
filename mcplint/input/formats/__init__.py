"""Readers of the logs and captures users already have (host logs, HAR, recorder JSONL).

Each module registers one or more :class:`mcplint.input.readers.InputFormat` at import; the module
paths are listed in :data:`mcplint.input.readers.FORMAT_MODULES`.
"""

# The readers module imports every format module at its end; importing it first means that
# importing one format module directly (``from mcplint.input.formats.x import ...``) still finds the
# registry complete and the shared helpers initialised (no circular partial imports).
import mcplint.input.readers  # noqa: F401
