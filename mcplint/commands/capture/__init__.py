"""``mcplint capture``: recording proxies for stdio and Streamable HTTP servers."""
