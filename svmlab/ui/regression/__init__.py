"""The Regression page."""
