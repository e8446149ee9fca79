"""The The lecture hub page."""
