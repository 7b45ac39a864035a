"""Placeholder: filled in below."""
