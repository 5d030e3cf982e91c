"""Engines compute the class statistics of candidate releases.

The :class:`Engine` protocol is what search methods talk to; the numpy engine
is the reference implementation and others (SQL, distributed) must return
identical statistics.
"""

from anonset.engine.base import ClassStats, Engine, StatsRequest, stats_from_assignment
from anonset.engine.numpy_engine import NumpyEngine

__all__ = ["ClassStats", "Engine", "NumpyEngine", "StatsRequest", "stats_from_assignment"]
