"""The ``mcplint`` commands, one module or package each (``cli.py`` only wires them to click)."""
