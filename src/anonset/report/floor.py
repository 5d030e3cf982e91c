"""The display floor: the fewest records a raw value, bin or combination must hold before a page may show it.

Every page anonset writes about a release (the report's HTML and JSON, a
comparison page, a web app) may show the input's values only in counts that
do not single anybody out: a quasi-identifier value, a numeric range or a
combination held by fewer than :func:`display_floor` records is never named;
such values are counted together in one bar or line whose label says that
it gathers values held by fewer than the floor each, and how many values.
:func:`rare_label` is that label, so every page words it alike.
"""

from __future__ import annotations

from anonset.privacy.base import Requirements, group_floor

__all__ = ["display_floor", "rare_label"]


def display_floor(requirements: Requirements | int) -> int:
    """``max(k, 2)``: a value (bin, combination) held by fewer records than this is never shown.

    Parameters
    ----------
    requirements : Requirements or int
        The release's requirements (their k-anonymity's k, 1 without one),
        or that k itself.

    Returns
    -------
    int
        At least 2, so a value held by one record is never shown, even when
        the release enforces no k-anonymity (an l-diversity or risk model
        alone).
    """
    return group_floor(requirements if isinstance(requirements, int) else requirements.k)


def rare_label(values: int, floor: int, what: str = "value") -> str:
    """``other: 3 values, < 5 records each``: the label of the bar that gathers the values below the floor.

    ``what`` names the things gathered (``value``, ``range``, ``combination``).
    """
    return f"other: {values:,} {what}{'' if values == 1 else 's'}, < {floor} records each"
