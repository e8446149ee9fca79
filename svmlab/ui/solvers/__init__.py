"""The Solvers page."""
