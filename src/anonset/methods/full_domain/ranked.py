"""The release policy of the research-value searches: their ranked success list, and which entry ``pick`` releases.

A research-value search (``rv-*``) returns the node it found best and, in
``details["success_list"]``, every successful generalization string it
found, best first (see :mod:`anonset.methods.full_domain.research_value`).
The search's own choice is entry 0; ``pick`` (``--pick``) releases another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from anonset.errors import ConfigError

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["picked_levels", "success_list"]


def success_list(result: SearchResult) -> list[dict[str, Any]]:
    """The search's successful strings, best first (``{levels: {attribute: level}, ...}``); [] when it keeps none."""
    return cast("list[dict[str, Any]]", result.details.get("success_list") or [])


def picked_levels(result: SearchResult, quasi: Sequence[str], pick: int | None) -> tuple[int, ...]:
    """The levels to release: the search's choice, or entry ``pick`` of its success list.

    Parameters
    ----------
    result : SearchResult
        What the full-domain search returned.
    quasi : sequence of str
        The quasi-identifiers, in the order of the levels.
    pick : int, optional
        The entry to release; None or 0 is the search's choice.

    Raises
    ------
    ConfigError
        ``pick`` is beyond the end of the success list.
    """
    if not pick:
        return result.levels
    entries = success_list(result)
    if pick >= len(entries):
        raise ConfigError(f"--pick {pick}: the success list has {len(entries)} entries (0 to {len(entries) - 1})")
    chosen = entries[pick]["levels"]
    return tuple(int(chosen[q]) for q in quasi)
