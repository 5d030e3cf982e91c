"""What each figure of a method's own record means, in words, for the report's "How the method found it".

A summary's ``search`` section holds the method's own figures under short
keys (``nodes_checked``, ``prefiltered``, ...).  :data:`SEARCH_WORDS` gives
each its label and a sentence; :func:`search_rows` turns a section into the
report's rows.  A key a method adds that is not listed here keeps its key as
its label and no sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SEARCH_WORDS", "search_rows"]

#: key -> (label, what it means)
SEARCH_WORDS: dict[str, tuple[str, str]] = {
    "strategy": ("how it searched", "the order in which the search went through the candidate generalizations"),
    "lattice_size": ("generalizations possible", "every combination of one generalization level per"
                     " quasi-identifier"),
    "nodes_checked": ("generalizations judged", "candidates whose classes were counted and judged against the"
                      " requirements; the others were ruled out or bounded without counting"),
    "nodes_computed": ("class tables counted", "candidates whose classes the engine counted from the records"
                       " (the others were rolled up from a finer candidate's classes)"),
    "nodes_evaluated": ("generalizations evaluated", "distinct candidates whose objectives were computed"),
    "prefiltered": ("ruled out beforehand", "candidates shown to fail before their classes were counted: at"
                    " their levels, single quasi-identifiers or pairs of them already leave more records in groups"
                    " below k than the suppression budget allows"),
    "assumed_practical_monotonicity": ("practical monotonicity assumed", "the search took a finer"
                                       " generalization's failure to mean its coarser ones fail too, without"
                                       " checking them (faster, not proven optimal)"),
    "search_seconds": ("search time (s)", "wall time of the search alone"),
    "method_seconds": ("method time (s)", "wall time of the method alone"),
    "optimized": ("metric optimized", "what the search made as small (or large) as it could"),
    "picked": ("entry released", "the position, in the ranked list below, of the release written (0: the"
               " best)"),
    "frequency_sets": ("frequency sets computed", "class tables the research-value search counted"),
    "complete": ("ran to its end", "false: the search stopped at its limit, so its best is not proven optimal"),
    "subsets": ("attribute subsets", "the groups of quasi-identifiers searched one at a time"),
    "strings_after_pre_pruning": ("candidates after the rules", "generalization strings left once the"
                                  " research-value rules (levels to avoid or keep) removed the others"),
    "largest_subset_list": ("largest subset list", "candidates of the largest attribute subset, each searched on"
                            " its own before the lists were combined"),
    "feasible_projections": ("feasible per subset", "candidates of each attribute subset that can still meet"
                             " the requirements, whose combinations the search tried"),
    "classes": ("classes formed", "groups of records the method made (before the re-check merges identical"
                " ones)"),
    "largest_class": ("largest class", "records in the largest group the method made"),
    "ranges_may_overlap": ("ranges may overlap", "whether two groups' released ranges can share values (local"
                           " recoding), which tells a reader that a value may belong to either"),
    "objectives": ("objectives", "the properties traded against each other"),
    "eta": ("suppression budget", "the share of the records that may be suppressed"),
    "epsilon": ("tolerances", "how much an objective may differ and still count as equal (none: plain"
                " dominance)"),
    "chosen_by": ("member chosen by", "pick: the member asked for; floor: the least-loss member meeting the"
                  " privacy floors"),
    "floors": ("privacy floors", "the least k (and l) a released member must have"),
}


def search_rows(search: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """``(label, value, meaning)`` for each plain figure of a ``search`` section, in its order."""
    rows = []
    for key, value in search.items():
        if isinstance(value, (dict, list)) and key not in ("floors", "objectives", "subsets", "epsilon",
                                                            "feasible_projections"):
            continue
        label, meaning = SEARCH_WORDS.get(key, (str(key).replace("_", " "), ""))
        rows.append((label, value, meaning))
    return rows
