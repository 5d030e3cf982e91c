"""``anonset check``: does a released file satisfy k-anonymity (and k-map, δ-presence, l-diversity, ...)?

The classes are recomputed from the released quasi-identifier values alone
(:func:`anonset.recheck.verify.verify_release`); the file's author, the
config and the input are not needed.  Exit code 1 when a requirement is
violated.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError

__all__ = ["check"]


@click.command()
@click.argument("data", type=click.Path(path_type=Path))
@click.option("--quasi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option("-k", "k", type=int, required=True, help="Minimum class size.")
@click.option("--sensitive", help="Sensitive column of --l, --t or --squared-error (never one of --quasi).")
@click.option("--l", "l_value", type=float, help="l of l-diversity (needs --sensitive).")
@click.option("--variant", type=click.Choice(["distinct", "entropy", "recursive"]), default="distinct",
              show_default=True, help="l-diversity variant.")
@click.option("--c", "c_value", type=float, help="c of recursive (c, l)-diversity.")
@click.option("--t", "t_value", type=float,
              help="t of t-closeness (needs --sensitive); the reference is the sensitive column of DATA.")
@click.option("--distance", type=click.Choice(["equal", "ordered", "hierarchical"]), default="equal",
              show_default=True, help="t-closeness ground distance (ordered: numbers or --order;"
                                      " hierarchical: --hierarchy).")
@click.option("--order", help="Comma-separated values of the sensitive column in order (ordered distance).")
@click.option("--hierarchy", type=click.Path(path_type=Path),
              help="Hierarchy file of the sensitive column (hierarchical distance).")
@click.option("--squared-error", type=float,
              help="Squared-error diversity: least sum of squared deviations of the numeric sensitive column.")
@click.option("--beta", type=float,
              help="beta of beta-likeness (needs --sensitive): no class raises a value's share by more than beta"
                   " relative to its share in DATA.")
@click.option("--beta-variant", type=click.Choice(["basic", "enhanced"]), default="basic", show_default=True,
              help="beta-likeness variant (enhanced: the bound is min(beta, -ln p)).")
@click.option("--delta-disclosure", type=float,
              help="delta of delta-disclosure privacy (needs --sensitive): |log2(q/p)| < delta for every value a"
                   " class holds, p its share in DATA.")
@click.option("--k-map", "k_map", type=int,
              help="k-map: k people of the population per class; estimated from --population-size or"
                   " --sampling-fraction (the class-size floor it derives is checked), or counted in --population.")
@click.option("--population-size", type=int, help="People in the population the input was sampled from (--k-map).")
@click.option("--sampling-fraction", type=float, help="The input's share of the population (--k-map).")
@click.option("--estimator", type=click.Choice(["poisson", "zero_truncated_poisson"]), default="poisson",
              show_default=True, help="k-map's estimator.")
@click.option("--significance", type=float, default=0.01, show_default=True, help="k-map's significance level.")
@click.option("--population", type=click.Path(path_type=Path),
              help="The population table the input was drawn from (CSV or Parquet, with the --quasi columns):"
                   " --k-map K then counts each class's matching people in it, and --delta-presence judges against"
                   " it. Give --quasi-hierarchy for every generalized column.")
@click.option("--delta-presence", help="MIN,MAX of delta-presence (needs --population): each class holds a share of"
                                       " the population records it matches within [MIN, MAX].")
@click.option("--quasi-hierarchy", multiple=True, metavar="COLUMN=FILE",
              help="Hierarchy file of a --quasi column: which population values a released label covers"
                   " (--population; repeat per column; without one a label covers only itself and '*').")
@click.option("--max-suppression", type=float, default=0.0, show_default=True,
              help="Fraction of the input's records that may be suppressed. Records whose quasi-identifiers are"
                   " all '*' count as suppressed when they fit it and other records are released; otherwise"
                   " they are a class of their own.")
@click.option("--input-records", type=int,
              help="Records in the input, when the release dropped its suppressed records (they count as"
                   " suppressed).")
@click.option("--blanks-match-any", is_flag=True,
              help="A '*' in a quasi-identifier is a blanked value that matches any value (a local-suppression"
                   " release): each record is judged by the records it cannot be told from.")
@click.option("--delimiter", help="CSV delimiter (sniffed when omitted).")
@user_errors
def check(data: Path, quasi: str, k: int, sensitive: str | None, l_value: float | None, variant: str,
          c_value: float | None, t_value: float | None, distance: str, order: str | None, hierarchy: Path | None,
          squared_error: float | None, beta: float | None, beta_variant: str, delta_disclosure: float | None,
          k_map: int | None, population_size: int | None, sampling_fraction: float | None, estimator: str,
          significance: float, population: Path | None, delta_presence: str | None, quasi_hierarchy: tuple[str, ...],
          max_suppression: float, input_records: int | None, blanks_match_any: bool, delimiter: str | None) -> None:
    """Verify that an existing release DATA satisfies k-anonymity (and l-diversity, t-closeness, ...).

    Classes are recomputed from the released quasi-identifier values. Given
    the run's budget (--max-suppression) and, when the run dropped its
    suppressed records, --input-records, the figures are those of the summary
    of the anonymize run that wrote DATA.

    \b
    Example:
      anonset check released.csv --quasi age,sex,zip -k 5 --sensitive diagnosis --l 3 --max-suppression 0.01
    """
    from anonset.core.dataset import Dataset
    from anonset.io.delimiters import check_delimiter
    from anonset.io.tables import read_table
    from anonset.privacy import (
        BetaLikeness,
        DeltaDisclosure,
        DeltaPresence,
        KAnonymity,
        KMap,
        PopulationKMap,
        PrivacyModel,
        Requirements,
        SquaredErrorDiversity,
        TCloseness,
    )
    from anonset.privacy.ldiversity import l_diversity
    from anonset.recheck.verify import verify_release

    names = list(dict.fromkeys(q.strip() for q in quasi.split(",") if q.strip()))
    if not names:
        raise ConfigError("--quasi names no column; give the released quasi-identifier columns, comma-separated")
    if sensitive in names:
        raise ConfigError(f"{sensitive!r} is in --quasi and --sensitive; a column is either a quasi-identifier"
                          " (an attacker may know it) or sensitive (an attacker must not learn it): name it once")
    wanted = {"--l": l_value, "--t": t_value, "--squared-error": squared_error, "--beta": beta,
              "--delta-disclosure": delta_disclosure}
    given = [flag for flag, value in wanted.items() if value is not None]
    if given and not sensitive:
        raise ConfigError(f"{given[0]} needs --sensitive COLUMN")
    if sensitive and not given:
        raise ConfigError(f"--sensitive {sensitive} is checked by nothing; add --l, --t, --squared-error, --beta or"
                          " --delta-disclosure")
    for flag, value in (("--t", t_value), ("--beta", beta), ("--delta-disclosure", delta_disclosure)):
        if value is not None and input_records is not None:
            raise ConfigError(f"{flag} compares with the sensitive column of DATA, which lacks the dropped records;"
                              " check it on a release that marks suppressed records (output suppressed: mark)")
    if k_map is None and (population_size is not None or sampling_fraction is not None):
        raise ConfigError("--population-size and --sampling-fraction describe the population of --k-map; add"
                          " --k-map K")
    if input_records is not None and input_records < 1:
        raise ConfigError(f"--input-records {input_records}: the input's records must be a whole number >= 1; give"
                          " the records of the table the release was made from")
    if delimiter is not None:
        check_delimiter(delimiter, "--delimiter")
    table = read_table(data, delimiter)
    if input_records is not None and input_records < len(table):
        raise ConfigError(f"--input-records {input_records}: fewer than the {len(table):,} records of {data}; give the"
                          " records of the input the release was made from (its records and the suppressed ones it"
                          " dropped)")
    attrs: dict[str, dict[str, Any]] = {q: {"role": "quasi"} for q in names}
    models: list[PrivacyModel] = [KAnonymity(k)]
    if sensitive:
        spec: dict[str, Any] = {"role": "sensitive"}
        if order:
            spec.update(type="ordinal", order=[v.strip() for v in order.split(",")])
        elif squared_error is not None or (t_value is not None and distance == "ordered"):
            spec["type"] = "numeric"
        if hierarchy is not None:
            spec["hierarchy"] = str(hierarchy)
        attrs[sensitive] = spec
    if l_value is not None:
        models.append(l_diversity(str(sensitive), l_value, variant, c_value))
    if t_value is not None:
        models.append(TCloseness(str(sensitive), t_value, distance))
    if squared_error is not None:
        models.append(SquaredErrorDiversity(str(sensitive), squared_error))
    if beta is not None:
        models.append(BetaLikeness(str(sensitive), beta, beta_variant))
    if delta_disclosure is not None:
        models.append(DeltaDisclosure(str(sensitive), delta_disclosure))
    if population is not None or delta_presence is not None:
        models += _population_models(population, k_map, delta_presence, population_size, sampling_fraction)
    elif k_map is not None:
        records = len(table) if input_records is None else input_records
        if population_size is not None and sampling_fraction is None:
            if population_size < records:
                raise ConfigError(f"--population-size {population_size:,} is smaller than the input ({records:,}"
                                  " records); give the population the input was sampled from")
            sampling_fraction = records / population_size  # the input's, also when the release dropped records
            population_size = None
        models.append(KMap(k_map, population_size, sampling_fraction, estimator, significance))
    dataset = Dataset(table, attrs, source=str(data))
    requirements = Requirements(models, max_suppression)
    for model in models:  # a model against a population judges the released labels: it encodes no input
        if not isinstance(model, PopulationKMap | DeltaPresence):
            model.validate(dataset)
    hierarchies = _quasi_hierarchies(quasi_hierarchy, names, population)
    report = verify_release(table, dataset, requirements, input_records, hierarchies={**{q: None for q in names},
                                                                                      **hierarchies},
                            blanks_match_any=blanks_match_any)
    click.echo(f"records: {len(table)}")
    click.echo(f"classes: {report.classes}")
    click.echo(f"smallest class: {report.min_class_size}" + (" (records each record matches, a '*' matching any"
                                                              " value)" if blanks_match_any else ""))
    click.echo(f"records in violating classes: {report.violating_rows}")
    click.echo(f"suppressed records (all quasi-identifiers '*'): {report.suppressed_rows}")
    if 0 < report.root_class_rows < len(table):
        click.echo(f"note: the {report.root_class_rows} records whose quasi-identifiers are all '*' are judged as a"
                   " class (they exceed --max-suppression); if they are suppressed records, give the run's budget")
    if report.ok:
        click.echo(f"satisfied: {requirements.describe()}")
        return
    for problem in report.problems:
        click.echo(f"violated: {problem}")
    sys.exit(1)


def _population_models(population: Path | None, k_map: int | None, delta_presence: str | None,
                       population_size: int | None, sampling_fraction: float | None) -> list[Any]:
    """k-map counted in the population table and δ-presence, from ``--population`` and its companions."""
    from anonset.io.table_file import TableFile
    from anonset.privacy import DeltaPresence, PopulationKMap

    if population is None:
        raise ConfigError("--delta-presence judges against a population table; add --population FILE")
    if k_map is None and delta_presence is None:
        raise ConfigError(f"--population {population} is the population of --k-map or --delta-presence; add one")
    if population_size is not None or sampling_fraction is not None:
        raise ConfigError("--population counts the population's records; drop --population-size and"
                          " --sampling-fraction (they estimate k-map when the population is not at hand)")
    reader, name = TableFile(population), str(population)
    models: list[Any] = []
    if k_map is not None:
        models.append(PopulationKMap(k_map, reader, name))
    if delta_presence is not None:
        parts = [p.strip() for p in delta_presence.split(",")]
        try:
            low, high = (float(p) for p in parts)
        except ValueError:
            raise ConfigError(f"--delta-presence {delta_presence}: give MIN,MAX, two numbers in [0, 1] such as"
                              " 0.05,0.5") from None
        models.append(DeltaPresence(low, high, reader, name))
    return models


def _quasi_hierarchies(given: tuple[str, ...], names: list[str], population: Path | None) -> dict[str, Any]:
    """The hierarchies of ``--quasi-hierarchy COLUMN=FILE``, by column."""
    from anonset.core.hierarchy_csv import read_hierarchy

    if given and population is None:
        raise ConfigError("--quasi-hierarchy tells which population values a label covers; it needs --population")
    out: dict[str, Any] = {}
    for item in given:
        column, _, path = item.partition("=")
        if not path or column not in names:
            raise ConfigError(f"--quasi-hierarchy {item}: give COLUMN=FILE with COLUMN one of --quasi"
                              f" ({', '.join(names)})")
        out[column] = read_hierarchy(Path(path), name=column)
    return out
