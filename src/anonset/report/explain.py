"""Why this release: a plain-language account generated from the run's record, and the nearby alternatives.

For a full-domain release the alternatives are computed: every node one
level finer in one attribute (what would it break, how many records would
need suppressing) and one level coarser (what would it cost), and, beyond
one step, for each attribute held at each level finer than released, the
cheapest release that keeps it there (an exact search of that part of the
lattice).  The other
families explain from their own record: the success list, the front, the
classes formed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.metrics import SEARCH_METRICS, make_metric
from anonset.metrics.descriptions import describe_metric
from anonset.privacy.base import Requirements
from anonset.release.perturbation import described
from anonset.report.attributes import level_text

__all__ = ["alternatives", "keeping_alternatives", "why_this_release"]

#: Metrics an alternative is costed in when the search optimized something a bare metric cannot score.
_FALLBACK_METRIC = "loss"


def alternatives(dataset: Dataset, requirements: Requirements, levels: Mapping[str, int],
                 metric_name: str | None) -> list[dict[str, Any]]:
    """The full-domain nodes one step from ``levels``: each one's feasibility, blocking models and cost.

    Each entry: ``attribute``, ``direction`` (``finer`` or ``coarser``),
    ``level``, ``feasible``, ``suppressed_rows`` (records the node must
    suppress), ``blocked_by`` (models that, judged alone with the budget,
    reject it) and ``metric``/``value`` (its score, feasible nodes only).
    """
    name = metric_name if metric_name in SEARCH_METRICS and metric_name != "research_value" else _FALLBACK_METRIC
    metric = make_metric(name, k=requirements.k)
    engine = NumpyEngine(dataset, requirements.request)
    base = tuple(int(levels[q]) for q in dataset.quasi)
    out = []
    for j, q in enumerate(dataset.quasi):
        top = dataset.require_hierarchy(q).max_level
        for step, direction in ((-1, "finer"), (1, "coarser")):
            level = base[j] + step
            if not dataset.specs[q].min_level <= level <= top:  # never below the attribute's min_level
                continue
            node = base[:j] + (level,) + base[j + 1:]
            stats = engine.class_stats(node)
            verdict = requirements.judge(stats, dataset.n_rows)
            entry: dict[str, Any] = {
                "attribute": q, "direction": direction, "level": level, "max_level": top,
                "feasible": bool(verdict.feasible), "suppressed_rows": int(verdict.suppressed_rows),
                "metric": name, "value": None, "blocked_by": []}
            if verdict.feasible:
                entry["value"] = float(metric.score(Partition.from_node(dataset.quasi, stats, verdict.kept), dataset))
            else:
                entry["blocked_by"] = [m.describe() for m in requirements.models
                                       if not Requirements([m], requirements.max_suppression)
                                       .judge(stats, dataset.n_rows).feasible]
            out.append(entry)
    return out


#: The largest capped lattice searched for a metric that gives the search no bound (each such search checks it all).
_UNBOUNDED_LIMIT = 5_000


def keeping_alternatives(dataset: Dataset, requirements: Requirements, levels: Mapping[str, int],
                         metric_name: str | None) -> list[dict[str, Any]]:
    """For each attribute and each level finer than released: the cheapest feasible release that keeps it there.

    Each entry: ``attribute``, ``at_most`` (the attribute held at this level
    or finer; a level whose best release is the one of the level above, which
    keeps the attribute finer still, is not repeated), ``levels`` (the node found: the exact optimum of the metric
    over the part of the lattice where the attribute stays at or below
    ``at_most``) or None when no release there meets the requirements,
    ``feasible``, ``suppressed_rows`` and ``metric``/``value``.  A metric
    that gives the search no bound is searched only on parts of at most
    :data:`_UNBOUNDED_LIMIT` nodes; a larger part is left out.
    """
    from anonset.errors import InfeasibleError
    from anonset.methods.full_domain.search import lattice_of, level_floors, optimal_search
    from anonset.progress import reporting

    name = metric_name if metric_name in SEARCH_METRICS and metric_name != "research_value" else _FALLBACK_METRIC
    metric = make_metric(name, k=requirements.k)
    engine = NumpyEngine(dataset, requirements.request)
    floors = level_floors(dataset, engine, requirements, requirements.monotonic)  # shared by every part searched
    full = [h.max_level for h in dataset.hierarchies]
    out: list[dict[str, Any]] = []
    for j, q in enumerate(dataset.quasi):
        level = int(levels[q]) - 1
        while level >= dataset.specs[q].min_level:
            capped = lattice_of(dataset, [level if i == j else m for i, m in enumerate(full)])
            if metric.node_bounds(dataset, capped.nodes[:1]) is None and capped.size > _UNBOUNDED_LIMIT:
                level -= 1
                continue
            entry: dict[str, Any] = {"attribute": q, "at_most": level, "max_level": full[j], "metric": name,
                                     "levels": None, "feasible": False, "suppressed_rows": None, "value": None}
            try:
                with reporting(None):  # short searches beside the report: no progress bars of their own
                    found = optimal_search(dataset, engine, requirements, metric, lattice=capped, floors=floors)
            except InfeasibleError:
                out.append(entry)
                break  # finer levels of this attribute fail too: a finer part of the lattice is a subset
            entry.update(levels=dict(zip(dataset.quasi, found.levels, strict=True)), feasible=True,
                         suppressed_rows=int(found.verdict.suppressed_rows), value=float(found.score))
            out.append(entry)
            # the node found is also the best of every finer part that still holds it: the next level that
            # can differ is one below the level it keeps the attribute at
            level = min(level, int(found.levels[j])) - 1
    return out


def why_this_release(summary: Mapping[str, Any], family: str, method_summary: str,
                     nearby: list[dict[str, Any]] | None, budget_rows: int, *, meets: bool = True,
                     checked: str | None = None) -> list[str]:
    """Paragraphs saying what was searched, what bound the choice and what the next-best alternatives cost.

    ``meets``: whether the re-check of the released values found every
    guarantee of ``checked`` (the requirements in words; default the run's)
    holding; what the paragraphs say of the released classes is that verdict,
    never the run's own claim.
    """
    search = summary.get("search") or {}
    method = summary["method"]
    requirements = summary["requirements"]
    given = "method.levels" in str(search.get("strategy", ""))
    out = [f"Method: {method}, releasing the node given in method.levels." if given else
           f"Method: {method} — {method_summary}."]
    if family == "full-domain":
        out += _full_domain(summary, search, requirements, nearby, budget_rows)
        cells = summary.get("suppressed_cells")
        if cells:
            out.append(f"Instead of suppressing the records of classes below k, {sum(cells.values()):,} of their"
                       " values were blanked (" + ", ".join(f"{q} {n:,}" for q, n in cells.items() if n)
                       + "), the least important first, as sdcMicro's local suppression does: a blank matches any"
                       " value, and every record is matched by k records or more.")
    elif family == "front":
        out += _front(summary, search)
    elif search.get("transform"):
        out.append("This release applies a recoding learned on other records to new ones; it was re-checked"
                   " against the requirements on its own.")
    elif summary.get("microaggregation"):
        aggregated = summary["microaggregation"]
        judged = checked or requirements
        verdict = f"each meeting {judged}" if meets else f"not all meeting {judged} (see the guarantees)"
        how = "MDAV" if aggregated["algorithm"] == "mdav" else "individual ranking"
        out.append(f"The method formed {aggregated['groups']:,} groups of nearby records with {how} and released"
                   f" {', '.join(aggregated['attributes'])} as each group's {aggregated['statistic']}, one number for"
                   " all its records, and every other quasi-identifier as what the group's records share. Groups"
                   f" released with the same values are one class: {summary['classes']:,} classes, {verdict}; the"
                   f" smallest has {summary['min_class_size']:,} records. The numbers moved by IL1s"
                   f" {aggregated['il1s']:.6g} (sdcMicro's information loss: |x − x'| / (sd √2) summed over"
                   f" the values); the largest relative change of an attribute's mean is {aggregated['means']:.3g}.")
    else:
        overlap = "may overlap" if search.get("ranges_may_overlap") else "do not overlap"
        judged = checked or requirements
        verdict = f"that each meet {judged}" if meets else f"that do not all meet {judged} (see the guarantees)"
        out.append(f"The method grouped the {summary['rows']:,} records into {summary['classes']:,} classes {verdict},"
                   f" and generalized each class's values on its own (ranges of different classes {overlap}); the"
                   f" smallest class has {summary['min_class_size']:,} records and {summary['suppressed_rows']:,}"
                   " records were suppressed.")
        out.append("Methods of this family do not weigh alternative releases against each other; to see what"
                   " another method would give on the same table, run `anonset compare` with both configs.")
    out += _perturbation(summary.get("perturbation"))
    return out


def _perturbation(done: Mapping[str, Any] | None) -> list[str]:
    """What the perturbations after the method did, and what their numbers risk and lose (none: [])."""
    if not done:
        return []
    steps = "; then ".join(described(t) for t in done["treatments"])
    text = (f"After the method, values were perturbed: {steps}. Perturbation changes values instead of"
            " coarsening them, so its guarantee is not k-anonymity: a released value may be true or not. The"
            " summary gives each transition matrix and noise level, which analysts need to correct their estimates.")
    numbers = done.get("numbers")
    if numbers:
        text += (f" Of the perturbed numbers ({', '.join(numbers['attributes'])}), record linkage (each released"
                 f" record matched to its nearest original) finds its own record for {numbers['record_linkage']:.1%}"
                 f" of the records, {numbers['interval_disclosure']:.1%} lie within 5% of a standard deviation of"
                 f" their original values (interval disclosure), and IL1s, sdcMicro's information loss, is"
                 f" {numbers['il1s']:.6g}; the largest relative change of a mean is {numbers['means']:.3g}, of a"
                 f" covariance {numbers['covariances']:.3g}.")
    return [text]


def _full_domain(summary: Mapping[str, Any], search: Mapping[str, Any], requirements: str,
                 nearby: list[dict[str, Any]] | None, budget_rows: int) -> list[str]:
    out = []
    optimized = search.get("optimized")
    described = describe_metric(str(optimized))
    word = "highest" if described.better == "higher" else "lowest"
    checked = search.get("nodes_checked")
    size = search.get("lattice_size")
    scope = (f"looked at {checked:,} of the {size:,} ways to generalize the quasi-identifiers"
             if checked is not None and size is not None else "searched the generalizations")
    strategy = str(search.get("strategy", ""))
    searched = not strategy.endswith("(no search)")  # a node given in method.levels, or fixed before the data
    if "method.levels" in strategy:
        out.append("Each quasi-identifier is generalized to one level of its hierarchy for the whole table. This"
                   " node was given in the configuration (method.levels), not searched for, and judged against"
                   f" {requirements} like any other.")
    elif not searched:
        out.append("Each quasi-identifier is generalized to one level of its hierarchy for the whole table. This"
                   " node was fixed before the data was seen (no search), and judged against"
                   f" {requirements}.")
    else:
        out.append(f"Each quasi-identifier is generalized to one level of its hierarchy for the whole table. The"
                   f" search {scope} and released the one with the {word} {optimized} among those that meet"
                   f" {requirements}.")
    success = summary.get("success_list")
    if success:
        picked = int(search.get("picked", 0))
        tail = [f"#{i}: research value {e['research_value']:.6g}" for i, e in enumerate(success[:4]) if i != picked]
        out.append(f"The research-value search found {len(success):,} generalizations that succeed; entry"
                   f" #{picked} was released (research value {success[picked]['research_value']:.6g})"
                   + (f"; the next ones: {'; '.join(tail[:3])}." if tail else "."))
    if not nearby:
        return out
    finer = [a for a in nearby if a["direction"] == "finer"]
    blocked = [a for a in finer if not a["feasible"]]
    if blocked:
        lines = []
        for a in blocked:
            models = ", ".join(a["blocked_by"]) or "the requirements together"
            lines.append(f"{a['attribute']} at {level_text(a['level'], a['max_level'])} would break {models}"
                         f" ({a['suppressed_rows']:,} records would need suppressing; the budget is {budget_rows:,})")
        out.append("What holds the release where it is: " + "; ".join(lines) + ".")
    open_finer = [a for a in finer if a["feasible"]]
    if open_finer:
        lines = [f"{a['attribute']} at {level_text(a['level'], a['max_level'])} ({a['metric']} {a['value']:.4g})"
                 for a in open_finer]
        released = (summary.get("metrics") or {}).get(str(optimized))
        if searched:
            out.append("Finer generalizations that also meet the requirements but score worse on the optimized"
                       " metric: " + "; ".join(lines) + ".")
        else:  # a given node is not the optimum: say how each compares with it
            out.append("Finer generalizations that also meet the requirements: " + "; ".join(lines)
                       + (f" (this release: {optimized} {released:.4g})." if released is not None else "."))
    coarser = sorted((a for a in nearby if a["direction"] == "coarser" and a["feasible"]),
                     key=lambda a: a["value"] if described.better == "lower" else -a["value"])
    if coarser:
        lines = [f"{a['attribute']} one level coarser ({level_text(a['level'], a['max_level'])}): {a['metric']}"
                 f" {a['value']:.4g}" for a in coarser[:3]]
        out.append(("The next-best alternatives, one step more general: " if searched else
                    "One step more general: ") + "; ".join(lines) + ".")
    return out


def _front(summary: Mapping[str, Any], search: Mapping[str, Any]) -> list[str]:
    front = summary.get("front") or []
    objectives = ", ".join(search.get("objectives", []))
    picked = int(search.get("picked", 0))
    out = [f"The search evaluated {search.get('nodes_evaluated', 0):,} of {search.get('lattice_size', 0):,}"
           f" generalizations and kept the {len(front):,} that no other beats on every objective ({objectives})."]
    if search.get("chosen_by") == "floor":
        floors = ", ".join(f"{k} ≥ {v:g}" for k, v in (search.get("floors") or {}).items())
        out.append(f"Member #{picked} was released: the one of least loss among the members that meet {floors}.")
    else:
        out.append(f"Member #{picked} was released because it was picked (--pick {picked}).")
    for i in (picked - 1, picked + 1):
        if 0 <= i < len(front):
            values = ", ".join(f"{k} {v:.4g}" for k, v in front[i]["objectives"].items())
            out.append(f"Neighbour #{i} on the front: {values}.")
    return out
