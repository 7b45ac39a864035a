"""Configuration: files, effective settings and rule selection."""
