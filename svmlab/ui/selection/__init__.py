"""The Model selection page."""
