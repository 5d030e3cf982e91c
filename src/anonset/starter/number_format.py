"""Numbers as people write them, in profiles, comments and the YAML text."""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["format_number", "number_text"]


def number_text(x: float) -> str:
    """A value as text: a whole number without ``.0`` (below 2**53), any other as Python writes it."""
    return str(int(x)) if x == math.floor(x) and abs(x) < 2**53 else repr(float(x))


def format_number(x: Fraction | float | int) -> str:
    """A number as people write it: 10 not 10.0, 0.05 not 1/20."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(x.numerator)
        return format(x.numerator / x.denominator, ".12g")
    return number_text(float(x))
