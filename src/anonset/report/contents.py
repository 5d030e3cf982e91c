"""Everything a release report shows, as JSON-ready data: built from the input, the released table and the run.

:func:`build_report` is the one source of the HTML report
(:mod:`anonset.report.html`) and of its JSON export.  It judges the release
afresh from the released values (the classes, the guarantees, the risk, the
levels, the loss and the metrics), so a report of a file made elsewhere says
the same as the report written beside the run, and its headline says first
when a guarantee fails.  A run's summary read from a file adds only what the
release cannot show (the search, the success list, the front, the timings)
and is refused when it disagrees with the release (:func:`check_summary`).

Where the input's own values appear (the distributions before, the examples
of a generalization, the suppressed records' combinations), a value held by
fewer records than the display floor (:func:`anonset.report.floor.display_floor`)
is never named.  Figures that need to know which input record each released
row is (the suppressed records' breakdown, record-level metrics, the
pattern-survival check) are given only when the rows are shown to be the
input's, in order (:func:`anonset.report.alignment.check_alignment`), and
are otherwise left out with a sentence saying why.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.core.dataset import Dataset, Role
from anonset.core.partition import Partition, partition_of_assignment
from anonset.errors import DataError
from anonset.metrics import reported_metrics
from anonset.metrics.descriptions import describe_metric
from anonset.privacy.base import Requirements
from anonset.privacy.population import PopulationModel
from anonset.recheck.population import population_counts_of_labels
from anonset.recheck.verify import VerificationReport, verify_release
from anonset.release.caveats import (
    concentrated_suppression,
    lost_attributes,
    lost_warning,
    suppressed_counts_of_rows,
)
from anonset.report.alignment import (
    Alignment,
    ReleasedCodes,
    all_star_rows,
    check_alignment,
    partition_of_blanked_release,
    partition_of_release,
    released_levels,
)
from anonset.report.attributes import attribute_sections, input_values, level_text, suppressed_breakdown
from anonset.report.explain import alternatives, keeping_alternatives, why_this_release
from anonset.report.floor import display_floor
from anonset.risk.attributes import quasi_identifier_risks
from anonset.risk.report import class_sizes_of_codes, matched_risk_report, risk_report
from anonset.risk.sample import DEFAULT_THRESHOLDS
from anonset.risk.sensitive import sensitive_view
from anonset.risk.survey import combination_keys
from anonset.risk.survey_report import survey_report, survey_table, survey_table_of_frame
from anonset.version import __version__

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["REPORT_FORMAT", "build_report", "check_release_columns", "check_summary"]

#: Version of the report's JSON layout (raised when a key changes meaning or goes away).
REPORT_FORMAT = 1


def check_release_columns(dataset: Dataset, released: pd.DataFrame, where: str) -> None:
    """A DataError unless ``released`` has the columns a release of ``dataset`` has (identifiers dropped)."""
    expected = [c for c in dataset.columns if dataset.specs[c].role is not Role.IDENTIFIER]
    missing = [c for c in expected if c not in released.columns]
    extra = [c for c in released.columns if c not in expected]
    if missing or extra:
        problem = (f"column {missing[0]!r} of the config's table is not in the release" if missing
                   else f"column {extra[0]!r} of the release is not a released column of the config's table")
        raise DataError(f"{where}: {problem} (release columns: {', '.join(map(str, released.columns))});"
                        " give the release this config produced")
    if len(released) > dataset.n_rows:
        raise DataError(f"{where}: the release has {len(released):,} records but the config's input has"
                        f" {dataset.n_rows:,}; give the release this config produced")


def build_report(dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
                 summary: Mapping[str, Any] | None = None, *, partition: Partition | None = None,
                 family: str | None = None, method_summary: str = "", run: Mapping[str, Any] | None = None,
                 workload: Mapping[str, Any] | None = None, where: str = "release",
                 summary_where: str = "summary", verification: VerificationReport | None = None,
                 blanks_match_any: bool = False, population: pd.DataFrame | pa.Table | None = None) -> dict[str, Any]:
    """The report of a release, as a JSON-ready mapping (the keys are documented in docs/report.md).

    Parameters
    ----------
    dataset : Dataset
        The input the release was made from, in memory.
    released : pandas.DataFrame
        The released records (suppressed ones marked ``*`` in every
        quasi-identifier, or dropped).
    requirements : Requirements
        The privacy models and the suppression budget of the run.
    summary : mapping, optional
        The run's summary (:meth:`anonset.release.release.Release.summary`).
        Read from a file (no ``partition``), it only adds the search, the
        success list or front and the timings, and must agree with the
        release (:func:`check_summary`); without it the report derives
        everything from the released values.
    partition : Partition, optional
        The method's partition, given by the run itself: its ``summary`` was
        made in the same process, so its metrics, input risk and warnings are
        taken as they are, and its rows are the input's.
    family : str, optional
        The method's family (``full-domain``, ``grouping``, ``front``).
    method_summary : str
        The method's one-line description.
    run : mapping, optional
        What the command knows of the run: ``config``, ``input`` (path,
        sha256), ``release`` (where it was written).
    workload : mapping, optional
        The config's ``evaluation`` section: its ``queries`` and ``patterns``
        checks are run on the release against the original records.
    where : str
        The release's name in error messages.
    summary_where : str
        The summary's name in error messages.
    verification : VerificationReport, optional
        The run's own re-check of ``released`` (given with ``partition`` by a
        run reporting in the same process), instead of re-checking again.
    blanks_match_any : bool
        A ``*`` is a blanked value matching any value (local suppression):
        the re-check and the risk count, for each record, the records it
        cannot be told from.
    population : pandas.DataFrame or pyarrow.Table, optional
        The population the input was drawn from (default: the one a privacy
        model reads): adds ARX's journalist and marketer figures to the risk.

    Raises
    ------
    DataError
        When the release is not one of this config's table, or the summary
        is not the summary of this release.
    """
    check_release_columns(dataset, released, where)
    blanks = blanks_match_any or bool(partition is not None and partition.blanks_match_any)
    if verification is None or partition is None:
        verification = verify_release(released, dataset, requirements, dataset.n_rows, blanks_match_any=blanks)
    floor = display_floor(requirements)
    from_run = partition is not None
    codes = None if from_run else ReleasedCodes.of(dataset, released)
    all_star = all_star_rows(released, dataset.quasi) if codes is None else codes.all_star()
    # the all-* records are the suppressed ones unless the re-check judged them a class of their own
    star_suppressed = all_star if not verification.root_class_rows else np.zeros(len(released), dtype=np.bool_)
    if partition is not None:  # the run's own: its rows are the input's, unless it left the suppressed out
        alignment = (Alignment(True) if partition.row_class is not None and len(released) == dataset.n_rows
                     else Alignment(False, reason="the suppressed records were left out of the release"))
        given = (summary or {}).get("levels")
        levels = None if given is None else {str(q): int(v) for q, v in given.items()}
    else:
        assert codes is not None
        alignment = check_alignment(dataset, codes)
        found = released_levels(dataset, codes, star_suppressed, alignment.aligned)
        if summary is not None:
            check_summary(summary, dataset, verification, found, where=where, summary_where=summary_where)
        levels = _levels(summary, found)
        partition = (partition_of_blanked_release(dataset, codes, star_suppressed, alignment.aligned) if blanks
                     else partition_of_release(dataset, codes, levels, star_suppressed, alignment.aligned))
        if partition is None and alignment.aligned:  # labels that name no node: each class's input values
            row_class = np.where(star_suppressed, -1, codes.classes())
            kept = row_class >= 0
            row_class[kept] = np.unique(row_class[kept], return_inverse=True)[1]
            partition = partition_of_assignment(dataset, row_class)
    aligned = alignment.aligned
    suppressed = star_suppressed if aligned and not verification.root_class_rows else None
    metrics, sources, omitted = _metrics(summary if from_run else None, dataset, requirements, partition,
                                         summary if not from_run else None)
    k = requirements.k
    released_sizes = verification.released_sizes
    # the input's risk: the run measured it already; a report of a file measures it here
    run_risk = ((summary or {}).get("risk") or {}).get("input") if from_run else None
    before = run_risk or risk_report(class_sizes_of_codes(dataset.qi_codes()))
    after = (None if not len(released_sizes) else
             risk_report(released_sizes, records_excluded=verification.suppressed_rows)
             if verification.released_matched is None else
             matched_risk_report(verification.released_matched, released_sizes,
                                 records_excluded=verification.suppressed_rows))
    method = summary["method"] if summary is not None else "unknown (no run summary given)"
    family = family or ("full-domain" if levels is not None else None)
    optimized = (summary or {}).get("search", {}).get("optimized")
    full_domain = family == "full-domain" and levels is not None and summary is not None
    nearby = alternatives(dataset, requirements, levels, optimized) if full_domain and levels is not None else None
    keeping = (keeping_alternatives(dataset, requirements, levels, optimized)
               if full_domain and levels is not None else None)
    # what the release shows is the re-check's; the summary adds the method's record
    facts = {**(summary or {"method": method, "requirements": requirements.describe(), "search": {}}),
             "rows": dataset.n_rows, "classes": verification.classes,
             "min_class_size": verification.min_class_size, "suppressed_rows": verification.suppressed_rows}
    budget = requirements.budget_rows(dataset.n_rows)
    guarantees = _guarantees(requirements, verification, budget, dataset.n_rows)
    report: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "anonset": __version__,
        "run": _run_section(summary, run, method, dataset),
        "headline": _headline(dataset, verification.classes, verification.min_class_size,
                              verification.suppressed_rows, released_sizes, after, requirements, guarantees),
        "guarantees": guarantees,
        "alignment": {"aligned": aligned, "note": _alignment_note(alignment)},
        "suppression": {
            "records": verification.suppressed_rows, "share": verification.suppressed_rows / max(dataset.n_rows, 1),
            "budget_records": budget, "budget_share": requirements.max_suppression,
            "dropped": len(released) < dataset.n_rows,
            "breakdown": (suppressed_breakdown(dataset, released, suppressed, levels, floor,
                                               verification.suppressed_disclosure)
                          if suppressed is not None else None),
            "breakdown_omitted": (None if suppressed is not None or not verification.suppressed_rows
                                  else _breakdown_omitted(alignment, verification)),
        },
        "attributes": attribute_sections(dataset, released, partition, levels, floor),
        "display_floor": floor,
        "classes": {**_class_section(released_sizes, k),
                    "blanks_note": None if verification.released_matched is None else
                    ("A blank (*) matches any value: a record with a blank cannot be told from any record that"
                     " agrees with it wherever both show a value, so groups of identical rows may hold fewer than"
                     f" k records; every record matches at least {verification.min_class_size} records.")},
        "risk": {"thresholds": [float(t) for t in DEFAULT_THRESHOLDS], "input": before, "release": after,
                 "k_threshold": 1.0 / k if k > 1 else None,
                 "survey": _survey(dataset, released, star_suppressed, where),
                 "quasi_identifiers": _quasi_identifiers(dataset, released, star_suppressed, where),
                 "attackers": _attackers(dataset, released, star_suppressed, requirements, population)},
        "sensitive": _sensitive(dataset, released, star_suppressed, max(k, 2)),
        "utility": [{"name": name, "value": value, "optimized": name == facts.get("search", {}).get("optimized"),
                     "source": sources[name], **describe_metric(name).to_json()} for name, value in metrics.items()],
        "utility_source": _utility_source(sources, from_run),
        "utility_omitted": omitted,
        "method": _method_section(facts, family),
        "why": (why_this_release(facts, family or "", method_summary, nearby, budget,
                                 meets=all(g["holds"] for g in guarantees), checked=requirements.describe())
                if summary is not None
                else _why_unknown(levels)),
        "alternatives": nearby,
        "keeping": keeping,
        "workload": _workload(dataset, partition, workload, alignment),
        "warnings": (list(summary.get("warnings", [])) if summary is not None
                     else _release_warnings(dataset, partition, suppressed, requirements)),
    }
    return report


def _release_warnings(dataset: Dataset, partition: Partition | None, suppressed: NDArray[np.bool_] | None,
                      requirements: Requirements) -> list[str]:
    """What a run would have warned about, read from the release: attributes lost, suppression concentrated."""
    out = [lost_warning(lost) for lost in lost_attributes(dataset, partition)] if partition is not None else []
    if suppressed is not None and suppressed.any():
        out += concentrated_suppression(dataset, suppressed_counts_of_rows(dataset, suppressed), requirements.k)
    return out


def check_summary(summary: Mapping[str, Any], dataset: Dataset, verification: VerificationReport,
                  levels: Mapping[str, tuple[int, ...]], *, where: str = "release",
                  summary_where: str = "summary") -> None:
    """A DataError naming the first thing ``summary`` says that the release (re-checked) does not show.

    Compared: the input's records, the suppressed records, the classes, the
    smallest class, and each full-domain level (one of the levels the
    released values can be: ``levels``, from
    :func:`anonset.report.alignment.released_levels`).
    """
    def refuse(problem: str) -> DataError:
        return DataError(f"{summary_where}: {problem}; give the summary anonymize --summary wrote for this release")

    said = {"rows": "records in the input", "suppressed_rows": "suppressed records", "classes": "classes",
            "min_class_size": "records in the smallest class"}
    shown = {"rows": dataset.n_rows, "suppressed_rows": verification.suppressed_rows,
             "classes": verification.classes, "min_class_size": verification.min_class_size}
    for key, words in said.items():
        value = summary.get(key)
        if value is None or value == shown[key]:
            continue
        if key == "suppressed_rows" and _suppression_explained(value, verification):
            continue
        whose = "the config's input has" if key == "rows" else f"{where} has"
        raise refuse(f"it says {value!r} {words} but {whose} {shown[key]:,}")
    given = summary.get("levels")
    if given is None:
        return
    if not isinstance(given, Mapping) or set(map(str, given)) != set(dataset.quasi):
        raise refuse(f"its levels {given!r} do not name the quasi-identifiers {', '.join(dataset.quasi)}")
    for q in dataset.quasi:
        level = given[q]
        possible = levels.get(q, ())
        if isinstance(level, int) and level in possible:
            continue
        h = dataset.hierarchy(q)
        actual = ("not levels of a hierarchy" if h is None else
                  "no single level of its hierarchy" if not possible else
                  level_text(possible[0], h.max_level) if len(possible) == 1 else
                  "one of levels " + ", ".join(map(str, possible)))
        raise refuse(f"it says {q!r} is at level {level!r} but the released values of {q!r} in {where} are"
                     f" {actual}")


def _workload(dataset: Dataset, partition: Partition | None, workload: Mapping[str, Any] | None,
              alignment: Alignment) -> dict[str, Any] | None:
    """The config's query-accuracy and pattern-survival checks run on the release, or None when none is set.

    A check that cannot be run on this release is left out with the reason,
    under ``omitted``: the queries need each class's released values, the
    patterns also which input record is in which class.
    """
    checks = {key: (workload or {}).get(key) for key in ("queries", "patterns")}
    if not any(checks.values()):
        return None
    from anonset.evaluation.queries import query_accuracy

    out: dict[str, Any] = {}
    omitted: dict[str, str] = {}
    if partition is None:
        reason = ("left out: the released values could not be read as generalized values of the input"
                  + (f", and {alignment.reason}" if alignment.reason else ""))
        return {"omitted": {key: reason for key, check in checks.items() if check}}
    q = checks["queries"]
    if q:
        accuracy = query_accuracy(dataset, partition, n_queries=q["count"], dimension=q["dimension"],
                                  selectivity=q["selectivity"], seed=q["seed"], threshold=q["threshold"])
        out["queries"] = {**accuracy.summary(), "share_above": accuracy.share_above, "dimension": q["dimension"],
                          "selectivity": q["selectivity"], "threshold": q["threshold"]}
    p = checks["patterns"]
    if p and partition.row_class is None:
        omitted["patterns"] = f"left out: the tree is scored on the input records of each class, and {alignment.reason}"
    elif p:
        from anonset.evaluation.patterns import pattern_survival  # scikit-learn: imported only for patterns

        survival = pattern_survival(dataset, partition, p["target"], task=p["task"], test_fraction=p["test_fraction"],
                                    depth=p["depth"], seed=p["seed"])
        out["patterns"] = {**survival.summary(), "target": p["target"]}
    if omitted:
        out["omitted"] = omitted
    return out


def _why_unknown(levels: Mapping[str, int] | None) -> list[str]:
    """What can be said of how a release was made when no run summary is given: only what its values show."""
    shape = ("Its values show one level of each quasi-identifier's hierarchy applied to the whole table (a"
             " full-domain generalization); the attributes below give the levels." if levels is not None else
             "Its values are not one level of each hierarchy for the whole table: the records were grouped and"
             " generalized group by group.")
    return ["No run summary was given, so how the method chose this release is not known (`anonset report CONFIG"
            " RELEASE --summary run.json` adds the method's record).", shape]


def _suppression_explained(said: Any, verification: VerificationReport) -> bool:
    """Can the run's ``said`` suppressed records be what the re-check found, though the counts differ?

    The method's suppressed records and a class it generalized to ``*`` in
    every attribute look alike in the release: the re-check counts them
    together, as suppressed records (more than the run said) or, beyond the
    budget, as one class (fewer, the rest in that class).
    """
    if not isinstance(said, int) or said < 0:
        return False
    found = verification.suppressed_rows
    return said < found or said <= found + verification.root_class_rows


def _levels(summary: Mapping[str, Any] | None, found: Mapping[str, tuple[int, ...]]) -> dict[str, int] | None:
    """The full-domain node of the release: the summary's (checked against ``found``), else the lowest its values show.

    None when the summary has none (a method that is not full-domain) or,
    without a summary, when some attribute's released values are no level
    of its hierarchy.
    """
    if summary is not None:
        levels = summary.get("levels")
        return None if levels is None else {str(q): int(v) for q, v in levels.items()}
    if any(not possible for possible in found.values()):
        return None
    return {q: possible[0] for q, possible in found.items()}


def _metrics(run_summary: Mapping[str, Any] | None, dataset: Dataset, requirements: Requirements,
             partition: Partition | None, file_summary: Mapping[str, Any] | None,
             ) -> tuple[dict[str, float | None], dict[str, str], dict[str, str]]:
    """The utility metrics, the source of each, and those left out with the reason.

    The run's own summary (``run_summary``, same process) gives them as the
    run computed them.  Otherwise they are scored on the partition the
    released values show; a metric that needs to know which input record is
    in which class is left out when the rows are not the input's, and a
    summary read from a file (``file_summary``) gives only what cannot be
    recomputed from the release (a research value).
    """
    if run_summary is not None:
        given = dict(run_summary.get("metrics", {}))
        return given, {name: "run" for name in given}, {}
    if partition is None:
        reason = "left out: the released values could not be read as generalized values of the input"
        return {}, {}, {m.name: reason for m in reported_metrics(dataset, requirements.k)}
    values: dict[str, float | None] = {}
    sources: dict[str, str] = {}
    omitted: dict[str, str] = {}
    for m in reported_metrics(dataset, requirements.k):
        if m.needs_rows and partition.row_class is None:
            omitted[m.name] = "left out: it needs to know which input record is in which class, and the rows are not"
            omitted[m.name] += " the input's in order"
            continue
        values[m.name] = float(m.score(partition, dataset))
        sources[m.name] = "release"
    for name, value in ((file_summary or {}).get("metrics") or {}).items():
        if name not in values and name not in omitted:
            values[name], sources[name] = value, "summary"
    return values, sources, omitted


def _utility_source(sources: Mapping[str, str], from_run: bool) -> str:
    if from_run:
        return "the run's summary"
    from_summary = [name for name, source in sources.items() if source == "summary"]
    return ("recomputed from the released classes"
            + (f" ({', '.join(from_summary)}: the run's summary)" if from_summary else ""))


def _alignment_note(alignment: Alignment) -> str | None:
    if alignment.aligned:
        return None
    return (f"The released rows are not matched to the input's records: {alignment.reason}. Figures that need that"
            " match are left out; the others are read from the released values.")


def _breakdown_omitted(alignment: Alignment, verification: VerificationReport) -> str:
    if verification.root_class_rows:
        return ("not broken down: the records released as * everywhere are more than the suppression budget, so"
                " the re-check judged them a class of their own")
    return f"not broken down: which input records were suppressed is not known, since {alignment.reason}"


def _attackers(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_], requirements: Requirements,
               population: pd.DataFrame | pa.Table | None) -> dict[str, Any] | None:
    """ARX's prosecutor, journalist and marketer figures against a population, before and after; None without one.

    The population is the one given, else the one a privacy model of the
    requirements reads (k-map or δ-presence against a table).  Each class's
    population count is the population records its values (original, or
    released and generalized) cover.
    """
    if population is None:
        population = next((m.population for m in requirements.models if isinstance(m, PopulationModel)), None)
    table = dataset.table
    if population is None or table is None:
        return None
    quasi = list(dataset.quasi)
    hierarchies = {q: dataset.hierarchy(q) for q in quasi}
    out: dict[str, Any] = {"population_records": int(population.num_rows) if isinstance(population, pa.Table)
                           else len(population)}
    for side, frame in (("input", table), ("release", released[~suppressed])):
        if frame.empty:
            out[side] = None
            continue
        counted = frame[quasi].astype(str).groupby(quasi, sort=False).size()
        index = counted.index.to_frame(index=False)
        labels = {q: index[q].to_numpy(dtype=object) for q in quasi}
        in_population = population_counts_of_labels(labels, population, dataset, hierarchies)
        if np.any(in_population < counted.to_numpy()):
            raise DataError(f"the population ({out['population_records']:,} records) holds fewer records of a class"
                            f" than the {side} does: give the population the input was drawn from")
        report = risk_report(counted.to_numpy(), population_sizes=in_population, attackers=True)
        out[side] = {key: report[key] for key in ("prosecutor", "journalist", "marketer")}
    return out


def _sensitive(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_],
               floor: int) -> dict[str, Any]:
    """Per sensitive attribute, how its values sit in the groups before and after (:mod:`anonset.risk.sensitive`).

    The release's homogeneous groups of ``floor`` records or more are listed
    with their released values; the input's are only counted (their values
    are what the release hides).  The suppressed records are left out.
    """
    out: dict[str, Any] = {}
    table = dataset.table
    quasi = list(dataset.quasi)
    kept = released[~suppressed]
    for name in dataset.sensitive:
        columns = [*quasi, name]
        before = None
        if table is not None:  # the input's values as categories of the codes the dataset holds: no strings grouped
            codes = pd.DataFrame({column: input_values(dataset, column) for column in columns})
            before = sensitive_view(_combinations_counted(codes, columns), quasi, name, floor, shown=0)
        groups = _combinations_counted(kept, columns, as_text=True)
        out[name] = {"input": before, "release": sensitive_view(groups, quasi, name, floor)}
    return out


def _combinations_counted(frame: pd.DataFrame, columns: list[str], as_text: bool = False) -> pd.DataFrame:
    """One row per distinct combination of ``columns`` in ``frame`` (a missing value is a value), its records in ``_n``.

    ``_class`` numbers the rows' combinations of every column but the last.  Counted on codes (each
    column factorized, the codes packed into one integer per record), so a table of millions of records
    becomes its combinations without grouping strings; ``as_text``: the values as text.
    """
    codes = np.empty((len(frame), len(columns)), dtype=np.int64)
    uniques = []
    for j, column in enumerate(columns):
        values = frame[column]
        codes[:, j], found = pd.factorize(values.astype(str) if as_text and not isinstance(
            values.dtype, pd.CategoricalDtype) else values, use_na_sentinel=False)
        uniques.append(np.asarray(found.astype(str) if as_text else found, dtype=object))
    combination = pd.factorize(combination_keys(codes))[0]  # numbered in order of first appearance
    first = np.unique(combination, return_index=True)[1]
    rows = codes[first]
    out = pd.DataFrame({column: uniques[j][rows[:, j]] for j, column in enumerate(columns)})
    out["_n"] = np.bincount(combination, minlength=len(first))
    if len(columns) > 1:  # the combinations of all columns but the last (the classes, for the sensitive view)
        out["_class"] = pd.factorize(combination_keys(rows[:, :-1]))[0]
    return out


def _survey(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_],
            where: str) -> dict[str, Any] | None:
    """The survey measures of the input and of the release (its suppressed records left out), or None.

    Measured when the table has a sampling weight (role ``weight``): the
    individual and global risk with the weights, the k-anonymity violations
    and SUDA2 (see :mod:`anonset.risk.survey_report`).
    """
    if dataset.weight is None:
        return None
    kept = released[~suppressed]
    missing = {q: dataset.specs[q].missing for q in dataset.quasi}
    return {"input": survey_report(survey_table(dataset)),
            "release": (survey_report(survey_table_of_frame(kept, dataset.quasi, missing, dataset.weight, where))
                        if len(kept) else None)}


def _quasi_identifiers(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_],
                       where: str) -> list[dict[str, Any]] | None:
    """Distinction and separation (:mod:`anonset.risk.attributes`) of each quasi-identifier alone and of all of
    them, in the input and in the release (its suppressed records left out); None for a table not in memory.

    Pairs are measured too (ARX's view shows every combination; ``anonset risk`` lists them), but the report
    keeps the single attributes and the whole set: which attribute tells records apart, and how much the
    release took from that.
    """
    if dataset.table is None or not dataset.quasi:
        return None
    names = list(dataset.quasi)
    limit = len(names) * (len(names) + 1) // 2 + 1
    before, _ = quasi_identifier_risks(survey_table(dataset).codes, names, limit=limit)
    kept = released[~suppressed]
    missing = {q: dataset.specs[q].missing for q in dataset.quasi}
    after = (quasi_identifier_risks(survey_table_of_frame(kept, dataset.quasi, missing, None, where).codes, names,
                                    limit=limit)[0] if len(kept) else [])
    wanted = [[q] for q in names] + ([names] if len(names) > 1 else [])
    found = {tuple(r["attributes"]): r for r in before}
    found_after = {tuple(r["attributes"]): r for r in after}
    measures = ("distinction", "separation")
    rows = [{"attributes": attributes, "input": {k: found[tuple(attributes)][k] for k in measures},
             "release": ({k: found_after[tuple(attributes)][k] for k in measures}
                         if tuple(attributes) in found_after else None)}
            for attributes in sorted(wanted, key=lambda a: (len(a) > 1, -found[tuple(a)]["separation"]))]
    return rows


def _run_section(summary: Mapping[str, Any] | None, run: Mapping[str, Any] | None, method: str,
                 dataset: Dataset) -> dict[str, Any]:
    provenance = dict((summary or {}).get("provenance", {}))
    out: dict[str, Any] = {
        "method": method, "engine": (summary or {}).get("engine"), "seed": provenance.get("seed"),
        "method_options": provenance.get("method_options"), "metric": provenance.get("metric"),
        "source": dataset.source, "records": dataset.n_rows,
        "quasi_identifiers": list(dataset.quasi),
        "sensitive": [c for c in dataset.columns if dataset.specs[c].role is Role.SENSITIVE],
        "dropped_identifiers": [c for c in dataset.columns if dataset.specs[c].role is Role.IDENTIFIER],
        "released_unchanged": [c for c in dataset.columns
                               if dataset.specs[c].role not in (Role.IDENTIFIER, Role.QUASI)],
        "versions": {k: provenance[k] for k in ("anonset", "python", "numpy", "pandas") if k in provenance},
        "seconds": (summary or {}).get("seconds"), "stage_seconds": (summary or {}).get("stage_seconds"),
    }
    out.update(dict(run or {}))
    return out


def _headline(dataset: Dataset, classes: int, smallest: int, suppressed: int, sizes: NDArray[np.int64],
              after: Mapping[str, Any] | None, requirements: Requirements,
              guarantees: list[dict[str, Any]]) -> list[str]:
    """Sentences a newcomer can repeat: whether the release meets its requirements, what was released, how safe.

    When the re-check finds a guarantee broken, the first sentence says so
    and names it; the rest never claims the requirements are met.
    """
    released = dataset.n_rows - suppressed
    quasi = ", ".join(dataset.quasi)
    failed = [g for g in guarantees if not g["holds"]]
    lines = []
    if failed:
        broken = "; ".join(f"{g['requirement']} is violated ({g['detail']})" for g in failed)
        lines.append(f"This release does NOT meet the requirements: {broken}.")
    lines.append(f"{released:,} of {dataset.n_rows:,} records are released, in {classes:,} groups of records that"
                 f" look the same on {quasi}; {suppressed:,} records ({suppressed / max(dataset.n_rows, 1):.1%}) were"
                 " withheld (suppressed).")
    if after is not None and len(sizes):
        meets = "" if failed else f" The release meets {requirements.describe()}."
        lines.append(f"Someone who knows a person's {quasi} can narrow that person down to a group of at least"
                     f" {smallest:,} records: a chance of at most {after['highest_risk']:.1%} of picking the right"
                     f" record, {after['average_risk']:.1%} on average.{meets}")
    return lines


def _guarantees(requirements: Requirements, verification: VerificationReport, budget: int,
                n_rows: int) -> list[dict[str, Any]]:
    """Each model and the suppression budget, as the re-check of the released values found them."""
    out = [{"requirement": m.describe(), "holds": m.describe() not in verification.violated,
            "detail": (f"smallest group {verification.min_class_size:,} records"
                       if type(m).__name__ == "KAnonymity" else f"checked in all {verification.classes:,} groups")}
           for m in requirements.models]
    out.append({"requirement": f"at most {requirements.max_suppression:.2%} of records suppressed ({budget:,} of"
                               f" {n_rows:,})",
                "holds": verification.suppressed_rows <= budget,
                "detail": f"{verification.suppressed_rows:,} suppressed"})
    if verification.suppressed_rows:
        broken = verification.suppressed_disclosure
        out.append({"requirement": "the suppressed records, released as one group, disclose no sensitive value",
                    "holds": not broken,
                    "detail": ("their released sensitive values break " + " and ".join(broken) if broken else
                               "their sensitive values are withheld, or satisfy every model as one group")})
    return out


def _class_section(sizes: NDArray[np.int64], k: int) -> dict[str, Any]:
    """Class-size statistics and a histogram (classes and records per size band)."""
    if not len(sizes):
        return {"count": 0, "bands": []}
    edges = sorted({1, 2, 3, k, k + 1, 2 * k, 5 * k, 10 * k, 20 * k, 50 * k, 100 * k, int(sizes.max()) + 1})
    edges = [e for e in edges if e >= 1]
    bands = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        mask = (sizes >= lo) & (sizes < hi)
        if not mask.any() and lo > int(sizes.max()):
            continue
        label = str(lo) if hi == lo + 1 else f"{lo}–{hi - 1}"
        bands.append({"label": label, "classes": int(mask.sum()), "records": int(sizes[mask].sum())})
    while bands and bands[0]["classes"] == 0:
        bands.pop(0)
    return {"count": int(len(sizes)), "smallest": int(sizes.min()), "largest": int(sizes.max()),
            "median": float(np.median(sizes)), "mean": float(sizes.mean()), "bands": bands}


def _method_section(facts: Mapping[str, Any], family: str | None) -> dict[str, Any]:
    """The method's own record: search facts, the success list (top 10) or the front."""
    out: dict[str, Any] = {"family": family, "search": facts.get("search", {})}
    levels = facts.get("levels")
    if levels:
        out["levels"] = dict(levels)
    if facts.get("success_list"):
        out["success_list"] = list(facts["success_list"])[:10]
        out["success_list_length"] = len(facts["success_list"])
    if facts.get("front"):
        out["front"] = list(facts["front"])
    return out

