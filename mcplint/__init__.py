"""mcplint: a wire-log analyzer and protocol linter for the Model Context Protocol."""

__version__ = "0.1.0"
