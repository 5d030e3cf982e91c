"""What is proposed for one column: :class:`Proposal`, its attributes entry and its hierarchy's levels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anonset.starter.column_profile import ColumnProfile
from anonset.starter.number_format import format_number

__all__ = ["Proposal"]


@dataclass(frozen=True)
class Proposal:
    """The role, type and hierarchy proposed for one column, and the comment lines that explain them."""

    profile: ColumnProfile
    role: str
    type: str | None = None
    hierarchy: dict[str, Any] | None = None
    missing: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    warning: str | None = None
    groups: tuple[int, ...] = ()   # intervals: bands per level; masking: groups per level

    @property
    def shape(self) -> str | None:
        """A sentence on the hierarchy's levels (None without a multi-level builder)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            widths = ", ".join(format_number(w) for w in h["widths"])
            bands = ", ".join(str(b) for b in self.groups)
            return f"Intervals {widths} wide (about {bands} bands), then *."
        if h.get("builder") == "dates":
            return f"Dates generalized to {', '.join(h['levels'])}, then * (format {h['format']})."
        if h.get("builder") == "masking":
            length = self.profile.code_length or 0
            example = self.profile.example or "x" * length
            masked = [example[: length - j] + "*" * j for j in range(1, h["levels"] + 1)]
            return (f"A code of {length} characters, masked from the right: {example} -> {' -> '.join(masked)}"
                    f" -> * ({self.groups[h['levels'] - 1]:,} groups at the coarsest level).")
        return None

    @property
    def entry(self) -> dict[str, Any]:
        """The column's mapping in ``attributes``."""
        out: dict[str, Any] = {"role": self.role}
        if self.type is not None:
            out["type"] = self.type
        if self.missing is not None:
            out["missing"] = list(self.missing)
        if self.hierarchy is not None:
            out["hierarchy"] = self.hierarchy
        return out

    @property
    def levels(self) -> int:
        """Levels of its hierarchy between the values and ``*`` (quasi-identifiers; 0 for flat)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            return len(h["widths"])
        if h.get("builder") in ("masking", "dates"):
            value = h.get("levels", 0)
            return value if isinstance(value, int) else len(value)
        return 0
