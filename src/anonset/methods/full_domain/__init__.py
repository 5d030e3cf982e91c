"""Searches over the full-domain generalization lattice."""

from anonset.core.lattice import Lattice
from anonset.methods.full_domain.search import SearchResult, exhaustive_search, optimal_search

__all__ = ["Lattice", "SearchResult", "exhaustive_search", "optimal_search"]
