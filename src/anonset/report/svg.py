"""Small inline-SVG charts for the HTML report: grouped bar charts and scatter plots, no plotting library.

Every chart is a self-contained ``<svg>`` element (no script, no external
font or style), with a ``<title>`` for screen readers, so the report stays one
file that prints as it shows.  Text is escaped; numbers are laid out on
"nice" axis ticks.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Series", "bar_chart", "nice_step", "range_chart", "scatter_plot"]

#: Series colours: the original data in grey, the release in blue, further series after them.
PALETTE = ("#9aa5b1", "#1f6fb2", "#d9822b", "#3c8d2f", "#8e44ad")
_FONT = 'font-family="system-ui, sans-serif" font-size="11"'
#: Characters of a bar's label drawn beside it (longer ones are cut, whole in the bar's tooltip); room for
#: the "other: 3 values, < 5 records each" bar of a distribution.
_LABEL_CHARS = 36


@dataclass(frozen=True)
class Series:
    """One series of a bar chart: a name (shown in the legend) and a value per category."""

    name: str
    values: Sequence[float]


def bar_chart(title: str, categories: Sequence[str], series: Sequence[Series], *, unit: str = "",
              percent: bool = False, marker: tuple[str, float] | None = None, width: int = 520) -> str:
    """A horizontal grouped bar chart: one group of bars per category, one bar per series.

    Parameters
    ----------
    title : str
        What the chart shows (its accessible title too).
    categories : sequence of str
        The row labels, top to bottom.
    series : sequence of Series
        Values per category (same length as ``categories``).
    unit : str
        Axis caption (``records``, ``share of records``).
    percent : bool
        Values are fractions: ticks and bar labels read as percentages.
    marker : (str, float), optional
        A vertical reference line at the value, labelled (a threshold).
    width : int
        Pixel width of the drawing.
    """
    label_width = min(12 + 7 * _LABEL_CHARS, 12 + 7 * max((len(c) for c in categories), default=4))
    bar_height = 13 if len(series) > 1 else 16
    group_height = bar_height * len(series) + 6
    top, bottom = 34, 34
    height = top + bottom + group_height * max(len(categories), 1)
    plot_left, plot_right = label_width, width - 50
    highest = max([v for s in series for v in s.values] + ([marker[1]] if marker else []) + [0.0])
    ticks = _ticks(highest)
    span = ticks[-1] or 1.0

    def x(value: float) -> float:
        return plot_left + (plot_right - plot_left) * value / span

    parts = [_open(width, height, title), _legend(series, plot_left, 16) if len(series) > 1 else ""]
    for tick in ticks:
        parts.append(f'<line x1="{x(tick):.1f}" y1="{top - 4}" x2="{x(tick):.1f}" y2="{height - bottom + 4}"'
                     ' stroke="#e3e7eb"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{height - bottom + 16}" text-anchor="middle" {_FONT}'
                     f' fill="#52606d">{escape(_number(tick, percent))}</text>')
    if unit:
        parts.append(f'<text x="{(plot_left + plot_right) / 2:.1f}" y="{height - 4}" text-anchor="middle" {_FONT}'
                     f' fill="#52606d">{escape(unit)}</text>')
    for i, category in enumerate(categories):
        y0 = top + i * group_height
        shown = escape(_clip(category, _LABEL_CHARS))
        parts.append(f'<text x="{plot_left - 6}" y="{y0 + group_height / 2 + 1:.1f}" text-anchor="end"'
                     f' dominant-baseline="middle" {_FONT} fill="#1f2933">{shown}</text>')
        for j, s in enumerate(series):
            value = float(s.values[i])
            y = y0 + 3 + j * bar_height
            length = max(x(value) - plot_left, 0.0)
            parts.append(f'<rect x="{plot_left}" y="{y}" width="{length:.1f}" height="{bar_height - 2}"'
                         f' fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(s.name)}: {escape(category)}'
                         f' {escape(_number(value, percent))}</title></rect>')
            parts.append(f'<text x="{plot_left + length + 3:.1f}" y="{y + bar_height / 2:.1f}"'
                         f' dominant-baseline="middle" {_FONT} fill="#52606d">{escape(_number(value, percent))}'
                         '</text>')
    if marker is not None:
        name, value = marker
        parts.append(f'<line x1="{x(value):.1f}" y1="{top - 6}" x2="{x(value):.1f}" y2="{height - bottom + 2}"'
                     ' stroke="#c0392b" stroke-width="1.5" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x(value) + 3:.1f}" y="{top - 8}" {_FONT} fill="#c0392b">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def scatter_plot(title: str, x_name: str, y_name: str, points: Sequence[tuple[float, float]], *,
                 highlight: int | None = None, highlight_label: str = "released", width: int = 420,
                 height: int = 300) -> str:
    """A scatter plot of ``points`` (a front's members), the ``highlight`` one drawn larger and labelled."""
    left, right, top, bottom = 58, 16, 28, 42
    xs = [p[0] for p in points] or [0.0]
    ys = [p[1] for p in points] or [0.0]
    x_lo, x_hi = _padded(min(xs), max(xs))
    y_lo, y_hi = _padded(min(ys), max(ys))

    def sx(v: float) -> float:
        return left + (width - left - right) * (v - x_lo) / (x_hi - x_lo)

    def sy(v: float) -> float:
        return height - bottom - (height - top - bottom) * (v - y_lo) / (y_hi - y_lo)

    parts = [_open(width, height, title)]
    parts.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}"'
                 ' fill="none" stroke="#cbd2d9"/>')
    for tick in _range_ticks(x_lo, x_hi):
        parts.append(f'<text x="{sx(tick):.1f}" y="{height - bottom + 14}" text-anchor="middle" {_FONT}'
                     f' fill="#52606d">{escape(_number(tick, False))}</text>')
    for tick in _range_ticks(y_lo, y_hi):
        parts.append(f'<text x="{left - 5}" y="{sy(tick):.1f}" text-anchor="end" dominant-baseline="middle"'
                     f' {_FONT} fill="#52606d">{escape(_number(tick, False))}</text>')
    parts.append(f'<text x="{(left + width - right) / 2:.1f}" y="{height - 6}" text-anchor="middle" {_FONT}'
                 f' fill="#1f2933">{escape(x_name)}</text>')
    parts.append(f'<text x="12" y="{(top + height - bottom) / 2:.1f}" text-anchor="middle" {_FONT} fill="#1f2933"'
                 f' transform="rotate(-90 12 {(top + height - bottom) / 2:.1f})">{escape(y_name)}</text>')
    for i, (px, py) in enumerate(points):
        chosen = i == highlight
        parts.append(f'<circle cx="{sx(px):.1f}" cy="{sy(py):.1f}" r="{6 if chosen else 3.5}"'
                     f' fill="{PALETTE[1] if chosen else PALETTE[0]}" stroke="#1f2933"'
                     f' stroke-width="{1 if chosen else 0}">'
                     f'<title>#{i}: {escape(x_name)} {px:.6g}, {escape(y_name)} {py:.6g}</title></circle>')
        if chosen:
            parts.append(f'<text x="{sx(px) + 8:.1f}" y="{sy(py) - 8:.1f}" {_FONT} fill="{PALETTE[1]}">'
                         f'{escape(highlight_label)} (#{i})</text>')
    parts.append("</svg>")
    return "".join(parts)


def range_chart(title: str, panels: Sequence[tuple[str, Sequence[Sequence[float]]]], *, per: float,
                unit: str, per_words: str | None = None, dates: bool = False, width: int = 520) -> str:
    """Panels of ranges ``[lo, hi, records]`` on one number line, as records per ``per`` of the value.

    Every panel shares the horizontal axis (the value) and the vertical one
    (records per ``per``), so the panels compare by height and by area.

    Parameters
    ----------
    title : str
        What the chart shows (its accessible title too).
    panels : sequence of (name, ranges)
        Each panel's name and its ranges, top to bottom.
    per : float
        The width of value the heights are given for (records per ``per``).
    unit : str
        What the value is (its axis caption).
    per_words : str, optional
        ``per`` in words (``year``); default the number.
    dates : bool
        The values are days since 1970-01-01: the axis is marked at the start of round years, and
        the ranges' tooltips read as dates.
    width : int
        Pixel width of the drawing.
    """
    lo = min(r[0] for _, ranges in panels for r in ranges)
    hi = max(r[1] for _, ranges in panels for r in ranges)
    heights = [[r[2] / (r[1] - r[0]) * per for r in ranges] for _, ranges in panels]
    ticks_y = _ticks(max(h for hs in heights for h in hs))
    top_y = ticks_y[-1] or 1.0
    ticks_x = _year_ticks(lo, hi) if dates else _range_ticks(lo, hi)
    text = _day_text if dates else (lambda value: _number(value, False))
    left, right, panel_height, gap, top = 56, width - 14, 84, 34, 38
    height = top + len(panels) * (panel_height + gap) + 18

    def x(value: float) -> float:
        return left + (right - left) * (value - lo) / ((hi - lo) or 1.0)

    parts = [_open(width, height, title)]
    for p, ((name, ranges), hs) in enumerate(zip(panels, heights, strict=True)):
        base = top + p * (panel_height + gap) + panel_height
        parts.append(f'<text x="{right}" y="{base - panel_height - 8}" text-anchor="end" {_FONT} font-weight="600"'
                     f' fill="{PALETTE[p % len(PALETTE)]}">{escape(name)}</text>')
        for tick in ticks_y[1:]:
            y = base - panel_height * tick / top_y
            parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e3e7eb"/>'
                         f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" {_FONT} fill="#52606d">'
                         f'{escape(_number(tick, False))}</text>')
        for (a, b, records), h in zip(ranges, hs, strict=True):
            y = base - panel_height * h / top_y
            parts.append(f'<rect x="{x(a):.1f}" y="{y:.1f}" width="{max(x(b) - x(a), 0.5):.1f}"'
                         f' height="{base - y:.1f}" fill="{PALETTE[p % len(PALETTE)]}" stroke="#fff"'
                         f' stroke-width="0.5"><title>{escape(name)}: {escape(text(a))} to'
                         f' {escape(text(b))}, {escape(_number(records, False))} records</title></rect>')
        parts.append(f'<line x1="{left}" y1="{base}" x2="{right}" y2="{base}" stroke="#52606d"/>')
        for tick in ticks_x:
            label = text(tick)[:4] if dates else text(tick)
            parts.append(f'<text x="{x(tick):.1f}" y="{base + 13}" text-anchor="middle" {_FONT}'
                         f' fill="#52606d">{escape(label)}</text>')
    parts.append(f'<text x="{(left + right) / 2:.1f}" y="{height - 2}" text-anchor="middle" {_FONT}'
                 f' fill="#52606d">{escape(unit)}; height: records per {escape(per_words or _number(per, False))}'
                 '</text>')
    parts.append("</svg>")
    return "".join(parts)


def _day_text(days: float) -> str:
    """A day since 1970-01-01 as an ISO date."""
    return (dt.date(1970, 1, 1) + dt.timedelta(days=math.floor(days))).isoformat()


def _year_ticks(lo: float, hi: float) -> list[float]:
    """Days since 1970-01-01 of the first of January of round years between ``lo`` and ``hi``."""
    first, last = (dt.date(1970, 1, 1) + dt.timedelta(days=math.floor(v)) for v in (lo, hi))
    step = int(nice_step(max((last.year - first.year) / 4, 1)))
    years = range((first.year + step - 1) // step * step, last.year + 1, step)
    return [float((dt.date(y, 1, 1) - dt.date(1970, 1, 1)).days) for y in years
            if lo <= (dt.date(y, 1, 1) - dt.date(1970, 1, 1)).days <= hi]


def _open(width: int, height: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}"'
            f' viewBox="0 0 {width} {height}"><title>{escape(title)}</title>'
            f'<text x="0" y="12" {_FONT} font-weight="600" fill="#1f2933">{escape(title)}</text>')


def _legend(series: Sequence[Series], left: int, y: int) -> str:
    parts = []
    x = left
    for j, s in enumerate(series):
        parts.append(f'<rect x="{x}" y="{y + 2}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>'
                     f'<text x="{x + 14}" y="{y + 11}" {_FONT} fill="#1f2933">{escape(s.name)}</text>')
        x += 24 + 7 * len(s.name)
    return "".join(parts)


def _ticks(highest: float) -> list[float]:
    """0 and nice ticks up to at least ``highest``."""
    if highest <= 0:
        return [0.0, 1.0]
    step = nice_step(highest / 4)
    count = math.ceil(highest / step - 1e-9)
    return [i * step for i in range(count + 1)]


def _range_ticks(lo: float, hi: float) -> list[float]:
    step = nice_step((hi - lo) / 4)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × a power of ten that is at least ``raw`` (> 0): a round tick or bin width."""
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _padded(lo: float, hi: float) -> tuple[float, float]:
    if hi - lo <= 0:
        pad = abs(lo) * 0.1 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.08
    return lo - pad, hi + pad


def _number(value: float, percent: bool) -> str:
    if percent:
        return f"{value * 100:.3g}%"
    if value and (abs(value) >= 1e7 or abs(value) < 1e-3):
        return f"{value:.3g}"
    if float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.4g}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
