"""The Losses page."""
