"""``mcplint stats``: traffic figures (collect) and their tables (render)."""
