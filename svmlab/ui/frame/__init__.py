"""The frame every page shares."""
