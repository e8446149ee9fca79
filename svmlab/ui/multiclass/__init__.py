"""The Multiclass page."""
