"""``mcplint show``: a capture as a timeline (table, Markdown, Mermaid or HTML)."""
