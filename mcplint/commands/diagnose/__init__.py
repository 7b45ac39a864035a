"""``mcplint diagnose``: where a session stalled (collect), and the report of it (render)."""
