"""``mcplint check``: lint captures and report findings."""
