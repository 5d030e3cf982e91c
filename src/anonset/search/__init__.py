"""Searches over the full-domain generalization lattice."""

from anonset.search.full_domain import SearchResult, exhaustive_search, optimal_search
from anonset.search.lattice import Lattice

__all__ = ["Lattice", "SearchResult", "exhaustive_search", "optimal_search"]
