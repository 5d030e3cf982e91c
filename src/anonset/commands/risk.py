"""``anonset risk``: re-identification risk of a config's table, or of a released file, without anonymizing.

The input's classes, and its distinct keys for the survey measures, are
counted where its records are (the config's run: in memory, in the
database, on Spark); a released file's from its values, its suppressed
records (every quasi-identifier ``*``) left out.  See docs/risk.md for the
figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from anonset.commands import user_errors
from anonset.commands.printing import console
from anonset.config import FileInput
from anonset.errors import ConfigError, DataError
from anonset.io.outputs import atomic_write, check_output_paths, is_stdout

if TYPE_CHECKING:
    import pandas as pd

    from anonset.config import RunConfig
    from anonset.runs.base import Run

__all__ = ["risk"]


@click.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--release", "release_path", type=click.Path(path_type=Path),
              help="Measure this released file (read with the config's delimiter) instead of the config's input.")
@click.option("--sampling-fraction", type=float, help="The table is this fraction of the population (0, 1].")
@click.option("--population-size", type=float, help="Records in the population the table was drawn from.")
@click.option("--threshold", "thresholds", type=float, multiple=True,
              help="Report the records whose risk 1/class size is above it (repeatable; default 0.5 0.2 0.1 0.05).")
@click.option("--population", "--population-table", "population_path", type=click.Path(path_type=Path),
              help="A file of the population the input was drawn from (same quasi-identifier columns; the input is"
                   " a subset of it, ARX's research subset): the journalist and marketer risks against it.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="Write the report here ('-': stdout).")
@user_errors
def risk(config: Path, release_path: Path | None, sampling_fraction: float | None, population_size: float | None,
         thresholds: tuple[float, ...], population_path: Path | None, json_path: Path | None) -> None:
    """Re-identification risk of CONFIG's table, or of a released file, without anonymizing (see docs/risk.md).

    Classes are the records' values on the config's quasi-identifiers;
    suppressed records of a release (every quasi-identifier ``*``) are left
    out of every figure and counted as excluded.  With --sampling-fraction or
    --population-size the population-uniqueness models are estimated too.
    The survey measures follow: the individual risk (weighted by the column
    of role weight, if any), the expected re-identifications, the records
    violating k = 2, 3, 5, and SUDA2 (a missing value matching any value
    in the keys; settings under risk.suda2 in the config).

    \b
    Examples:
      anonset risk config.yaml                                  # the input's risk
      anonset risk config.yaml --release released.csv --sampling-fraction 0.1
    """
    from functools import partial

    import numpy as np

    from anonset.config import load_config
    from anonset.risk.population import check_population
    from anonset.risk.report import matched_risk_report, risk_report
    from anonset.risk.sample import DEFAULT_THRESHOLDS
    from anonset.runs.base import json_writer, run_for

    if sampling_fraction is not None and population_size is not None:
        raise ConfigError("give --sampling-fraction or --population-size, not both")
    population = partial(check_population, sampling_fraction=sampling_fraction, population_size=population_size,
                         fraction_name="--sampling-fraction", size_name="--population-size", whole=True)
    if sampling_fraction is not None or population_size is not None:
        population(None)  # what a table of any size refuses, before reading it
    for threshold in thresholds:
        if not 0 < threshold <= 1:
            raise ConfigError(f"--threshold {threshold:g}: a risk threshold must be in (0, 1] (a record's risk is"
                              " 1 / its class size)")
    cfg = load_config(config)
    check_output_paths({"report": json_path},
                       {**cfg.input_files(), "release": release_path, "population": population_path})
    population_sizes = None
    released: _Released | None = None
    run = run_for(cfg)  # one run: its input is read once for every measure
    if population_path is not None:
        if release_path is not None or not run.in_memory:
            raise ConfigError("--population measures the input of a config read into memory (engine: numpy);"
                              " a release's classes are generalized and the population's are not")
        sizes, population_sizes, source = _journalist_class_sizes(cfg, population_path)
        excluded = 0
    elif release_path is not None:
        released = _read_release(cfg, release_path)
        sizes, excluded, source = _released_class_sizes(cfg, released)
    else:
        sizes, source = run.input_class_sizes()
        excluded = 0
    records = int(np.asarray(sizes).sum()) + excluded
    if sampling_fraction is not None or population_size is not None:
        population(records)
    matched = _released_matches(cfg, released) if released is not None else None
    if matched is not None:  # blanks match any value: each record's risk is 1 / the records it matches
        if sampling_fraction is not None or population_size is not None:
            raise ConfigError(f"{release_path}: the population models count classes of identical records, and a"
                              f" release of method {cfg.method} is judged by the records each one matches (a blank"
                              " matching any value); measure the input with --sampling-fraction instead")
        report = {"source": source, **matched_risk_report(matched, sizes, records_excluded=excluded,
                                                          thresholds=thresholds or DEFAULT_THRESHOLDS,
                                                          attackers=True)}
    else:
        report = {"source": source, **risk_report(sizes, records_excluded=excluded,
                                                   thresholds=thresholds or DEFAULT_THRESHOLDS,
                                                   sampling_fraction=sampling_fraction,
                                                   population_size=population_size,
                                                   population_sizes=population_sizes, attackers=True)}
    report.update(_record_measures(cfg, run, released, thresholds or DEFAULT_THRESHOLDS))
    report["sensitive"] = _sensitive_views(cfg, run, released)
    if json_path is not None:
        if is_stdout(json_path):
            click.echo(json.dumps(report, indent=2))
            return
        atomic_write(json_path, json_writer(report))
    out = console
    out.print(f"[bold]risk[/bold] of {source}: {report['records']:,} records in {report['classes']:,} classes"
              f" ({report['records_excluded']:,} suppressed left out)")
    out.print(f"highest risk {report['highest_risk']:.4g} ({report['records_at_highest_risk']:.2%} of records),"
              f" average risk {report['average_risk']:.4g}, sample uniques {report['sample_uniques']:.2%}")
    for threshold, share in report["records_above"].items():
        out.print(f"records with risk above {threshold}: {share:.2%}")
    population = report["population_uniques"]
    if population is not None:
        models = ", ".join(f"{m} {'n/a' if population[m] is None else format(population[m], '.4g')}"
                           for m in ("pitman", "zayatz", "snb"))
        chosen = population["chosen"]
        out.print(f"population uniques ({models}); decision rule: {population['chosen_model']}"
                  + ("" if chosen is None else f" {chosen:.4g}"))
    journalist, marketer = report["journalist"], report["marketer"]
    against = "the population" if population_path is not None else "the sample itself (no population given)"
    out.print(f"journalist risk against {against}: highest {journalist['highest_risk']:.4g}, average"
              f" {journalist['average_risk']:.4g}; marketer risk {marketer['average_risk']:.4g}")
    _print_survey(report)
    _print_quasi_identifiers(report)
    for name, view in report["sensitive"].items():
        if view["classes"]:
            homogeneous = view["homogeneous"]
            out.print(f"sensitive {name!r}: one value holds up to {view['highest_share']:.0%} of a class;"
                      f" {homogeneous['classes']:,} classes ({homogeneous['records']:,} records) with one value at"
                      f" {homogeneous['threshold']:.0%} or more; mean entropy {view['mean_entropy']:.3g} bits")


def _record_measures(cfg: RunConfig, run: Run, released: _Released | None,
                     thresholds: tuple[float, ...]) -> dict[str, Any]:
    """The measures that read the records' keys: the survey measures (``individual_risk``, ``global_risk``,
    ``k_anonymity_violations``, ``suda2``) and ``quasi_identifiers`` (distinction and separation of every
    combination, ``quasi_identifiers_truncated`` when some were left out), of the input or a release."""
    from anonset.risk.attributes import quasi_identifier_risks
    from anonset.risk.survey_report import Suda2Settings, survey_report

    table = _released_survey_table(cfg, released) if released is not None else run.survey_table()
    settings = Suda2Settings(**cfg.risk.get("suda2", {}))
    measures = survey_report(table, thresholds=thresholds, settings=settings)
    combinations, truncated = quasi_identifier_risks(table.codes, table.names, table.counts)
    return {**measures, "quasi_identifiers": combinations, "quasi_identifiers_truncated": truncated}


def _sensitive_views(cfg: RunConfig, run: Run, released: _Released | None) -> dict[str, Any]:
    """Per sensitive attribute: the most frequent value's share and entropy in the classes, homogeneous classes."""
    from anonset.risk.sensitive import sensitive_view

    quasi = cfg.quasi_columns()
    sensitive = [n for n, e in cfg.attributes.items() if e.get("role") == "sensitive"]
    floor = max(cfg.requirements.k, 2)
    views = {}
    for name in sensitive:
        columns = [*quasi, name]
        groups = (run.value_counts(columns) if released is None else
                  released.kept[columns].groupby(columns, sort=False, dropna=False).size().reset_index(name="_n"))
        views[name] = sensitive_view(groups, quasi, name, floor)
    return views


def _print_quasi_identifiers(report: dict[str, Any], shown: int = 5) -> None:
    """The combinations of quasi-identifiers that tell records apart most (--json lists them all)."""
    out = console
    out.print(f"quasi-identifiers that single records out most (of {len(report['quasi_identifiers']):,}"
              " combinations; --json lists them all):")
    for row in report["quasi_identifiers"][:shown]:
        out.print(f"  {', '.join(row['attributes'])}: distinction {row['distinction']:.4g},"
                  f" separation {row['separation']:.4g}")


def _print_survey(report: dict[str, Any]) -> None:
    """The survey measures, a line each (or why they are missing)."""
    out = console
    individual, suda = report["individual_risk"], report["suda2"]
    expected = report["global_risk"]
    kind = "weighted" if individual["weighted"] else "no weight: 1/fk"
    out.print(f"individual risk (Benedetti-Franconi, {kind}): highest {individual['max']:.4g},"
              f" mean {individual['mean']:.4g}")
    out.print(f"expected re-identifications {expected['expected_reidentifications']:.4g} ({expected['share']:.2%})")
    violations = ", ".join(f"k={k} {n:,}" for k, n in report["k_anonymity_violations"].items())
    out.print(f"k-anonymity violations (missing matches any): {violations} records")
    out.print(f"SUDA2 (MSUs up to size {suda['max_size']}): {suda['records_with_score']:,} records with a score,"
              f" highest {suda['max_score']:.4g}, mean {suda['mean_score']:.4g}")
    shares = ", ".join(f"{a} {c:.1f}%" for a, c in suda["contributions"].items())
    out.print(f"DIS-SUDA highest {suda['dis_suda']['max']:.4g}; attribute contributions {shares}")


def _journalist_class_sizes(cfg: RunConfig, population_path: Path) -> tuple[Any, Any, str]:
    """The input's class sizes and, aligned with them, the sizes of the same classes in a population file."""
    from anonset.io.tables import read_table

    inp = cfg.input
    assert isinstance(inp, FileInput)
    quasi = cfg.quasi_columns()
    sample = read_table(inp.path, inp.delimiter, inp.format)
    population = read_table(population_path)
    missing = [q for q in quasi if q not in population.columns]
    if missing:
        raise DataError(f"{population_path}: quasi-identifier column {missing[0]!r} is not in the population"
                        f" table; columns are {', '.join(map(str, population.columns))}")
    if len(population) < len(sample):
        raise DataError(f"{population_path}: the population has {len(population)} records, fewer than the"
                        f" {len(sample)} of the sample {inp.path}; give the population it was drawn from")
    sample_sizes = sample[quasi].astype(str).groupby(quasi, sort=False).size()
    population_sizes = population[quasi].astype(str).groupby(quasi, sort=False).size()
    aligned = population_sizes.reindex(sample_sizes.index)
    if aligned.isna().any():
        raise DataError(f"{population_path}: {int(aligned.isna().sum())} class(es) of the sample do not occur in the"
                        " population table; give the population the sample was drawn from")
    return sample_sizes.to_numpy(), aligned.to_numpy().astype("int64"), str(inp.path)


def _blanks_match_any(cfg: RunConfig) -> bool:
    """Whether the config's method releases blanks that match any value (local suppression, suppression: cells)."""
    from anonset.methods import registry

    return registry.get(cfg.method).blanks_match_any or cfg.method_options.get("suppression") == "cells"


@dataclass(frozen=True)
class _Released:
    """A released file, read once: its path and its records not suppressed (every quasi-identifier ``*``)."""

    path: Path
    kept: pd.DataFrame
    suppressed: int


def _read_release(cfg: RunConfig, path: Path) -> _Released:
    """The released file (read with the config's delimiter), checked to hold the config's quasi-identifiers."""
    from anonset.io.tables import read_table
    from anonset.recheck.columns import SUPPRESSED
    from anonset.runs.base import release_delimiter

    table = read_table(path, release_delimiter(cfg))
    quasi = cfg.quasi_columns()
    missing = [q for q in quasi if q not in table.columns]
    if missing:
        raise DataError(f"{path}: column {missing[0]!r} of the config's quasi-identifiers is not in the release;"
                        f" columns are {', '.join(map(str, table.columns))}: give the release made with this config")
    suppressed = (table[quasi].astype(str) == SUPPRESSED).all(axis=1)
    if suppressed.all():
        raise DataError(f"{path}: every record is suppressed, so no class is left to measure")
    return _Released(path, table[~suppressed].reset_index(drop=True), int(suppressed.sum()))


def _released_matches(cfg: RunConfig, released: _Released) -> Any:
    """Per class of a released file (as :func:`_released_class_sizes` orders them), the records it matches when
    the config's method blanks values that match any value; None for any other method."""
    if not _blanks_match_any(cfg):
        return None
    import numpy as np

    from anonset.recheck.verify import matched_class_sizes

    quasi = tuple(cfg.quasi_columns())
    values = released.kept[list(quasi)].astype(str)
    grouped = values.groupby(list(quasi), sort=False, dropna=False).ngroup().to_numpy().astype(np.int64)
    return matched_class_sizes(values, quasi, grouped, np.bincount(grouped).astype(np.int64))


def _released_survey_table(cfg: RunConfig, released: _Released) -> Any:
    """A released file's keys for the survey measures, its suppressed records left out."""
    from anonset.recheck.columns import SUPPRESSED
    from anonset.risk.survey_report import survey_table_of_frame

    markers = cfg.missing_markers()
    if _blanks_match_any(cfg):  # a blanked value is missing: it matches any value
        markers = {name: (*found, SUPPRESSED) for name, found in markers.items()}
    return survey_table_of_frame(released.kept, cfg.quasi_columns(), markers, cfg.weight_column(),
                                 str(released.path))


def _released_class_sizes(cfg: RunConfig, released: _Released) -> tuple[Any, int, str]:
    """Class sizes of a released file on the config's quasi-identifiers, the suppressed records, its name."""
    quasi = cfg.quasi_columns()
    sizes = released.kept[quasi].astype(str).groupby(quasi, sort=False, dropna=False).size().to_numpy()
    return sizes, released.suppressed, str(released.path)
