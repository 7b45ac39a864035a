"""``mcplint probe``: a scripted client session against a server, recorded and linted."""
