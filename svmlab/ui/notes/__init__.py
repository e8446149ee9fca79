"""The Notes on the sources page."""
