"""How a :class:`~anonset.release.release.Release` shows itself in a notebook: its "In short" and its guarantees.

:func:`release_html` is what ``Release._repr_html_`` returns: the sentences a
custodian can repeat (what was released, how safe it is), one row per privacy
model and the suppression budget with what the re-check found, and every
warning of the release.  Every value is escaped; the fragment loads nothing
(no script, no style sheet, no image).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anonset.release.release import Release

__all__ = ["release_html"]


def release_html(release: Release) -> str:
    """An HTML fragment: In short, the guarantees, the warnings."""
    n = release.partition.n_rows
    suppressed = release.suppressed_rows
    share = suppressed / n if n else 0.0
    lines = [f"{n - suppressed:,} of {n:,} records released in {release.n_classes:,} groups of at least"
             f" {release.min_class_size:,} records that look the same on their quasi-identifiers; {suppressed:,}"
             f" ({share:.1%}) suppressed."]
    risk = (release.risk or {}).get("release")
    if risk:
        lines.append(f"A person's record can be picked out with a chance of at most {risk['highest_risk']:.1%}"
                     f" ({risk['average_risk']:.1%} on average) by someone who knows their quasi-identifiers.")
    if release.levels:
        lines.append("Levels: " + ", ".join(f"{q} {v}" for q, v in release.levels.items()) + " (0 = as in the input).")
    where = f" Written to {release.location}." if release.location else ""
    verdict = ("Re-checked from the released values: every guarantee below holds." if release.verified else
               "NOT verified: this release was not re-checked or broke the requirements (on_violation='warn').")
    rows = "".join(f"<tr><td>{escape(model)}</td><td>{'holds' if release.verified else 'not verified'}</td></tr>"
                   for model in (release.models or (release.requirements,)))
    warnings = "".join(f"<li>{escape(w)}</li>" for w in release.warnings)
    style = "" if release.verified else ' style="color:#a40000"'
    return ("<div>"
            f"<p><b>anonset release</b> ({escape(release.method)}){escape(where)}</p>"
            f"<p><b>In short.</b> {' '.join(escape(line) for line in lines)}</p>"
            f"<p{style}>{escape(verdict)}</p>"
            f"<table><tr><th>guarantee</th><th>re-check</th></tr>{rows}</table>"
            + (f"<p><b>Warnings</b></p><ul>{warnings}</ul>" if warnings else "")
            + "</div>")
