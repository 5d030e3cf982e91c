"""Searches over the full-domain generalization lattice."""
