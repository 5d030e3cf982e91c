"""``anonset evaluate``: LeFevre et al.'s train/test protocol and the utility checks of a config's release.

The recoding is learned on training records only and applied to test
records; models trained on the recoded records are scored against the same
models on the original ones (:mod:`anonset.evaluation`).  Nothing is
released.  The records are read into memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from anonset.commands import user_errors
from anonset.commands.printing import console_for
from anonset.errors import ConfigError
from anonset.io.outputs import atomic_write, check_output_paths

if TYPE_CHECKING:
    from anonset.config import RunConfig
    from anonset.runs.base import Run

__all__ = ["evaluate"]


@click.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--summary", "summary_path", type=click.Path(path_type=Path),
              help="Write a JSON summary here ('-' for standard output).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@user_errors
def evaluate(config: Path, summary_path: Path | None, quiet: bool) -> None:
    """Train/test evaluation of CONFIG's method (see docs/workload_aware.md): the recoding is learned on
    training records only and applied to test records; models trained on the recoded records are scored
    against the same models on the original ones.  With evaluation.queries or evaluation.patterns the method
    is also fitted on all records and its release put through the aggregate-query and pattern-survival checks
    (docs/utility.md).  Nothing is released.

    \b
    Example:
      anonset evaluate mondrian-infogain.yaml --summary evaluation.json
    """
    from anonset.config import load_config
    from anonset.evaluation import evaluate as run_evaluation
    from anonset.progress import terminal_progress
    from anonset.runs.base import json_writer, read_in_memory, run_for

    cfg = load_config(config)
    run = run_for(cfg)
    checks = {key: cfg.evaluation[key] for key in _UTILITY_CHECKS if key in cfg.evaluation}
    if not run.in_memory:
        if checks:
            raise ConfigError(f"{cfg.path}: the utility checks ({', '.join(f'evaluation.{k}' for k in checks)}) need"
                              f" the records in memory and engine {cfg.engine} keeps them in the database;"
                              " set engine: numpy")
        raise ConfigError(f"{cfg.path}: evaluation runs in memory; set engine: numpy")
    check_output_paths({"summary": summary_path}, cfg.input_files())  # before any work is done
    out = console_for(summary_path)
    options = {key: value for key, value in cfg.evaluation.items() if key not in _UTILITY_CHECKS}
    summary: dict[str, Any] = {}
    with terminal_progress(enabled=not quiet):
        dataset = read_in_memory(cfg, "evaluation")
        if _runs_protocol(cfg, options, bool(checks)):
            if "folds" not in options and "test_fraction" not in options:
                options["folds"] = 10
            result = run_evaluation(dataset, requirements=cfg.requirements, method=cfg.method,
                                    method_options=cfg.method_options, weights=cfg.weights, seed=cfg.seed, **options)
            summary = result.summary()
        if checks:
            summary.update(_utility_figures(run, dataset, checks))
    if summary_path is not None:
        atomic_write(summary_path, json_writer(summary))
    if quiet:
        return
    if "models" in summary:
        _print_protocol(summary, out)
    if checks:
        _print_utility(summary, out)


#: The ``evaluation`` keys that ask for checks of a release fitted on all records (docs/utility.md).
_UTILITY_CHECKS = ("queries", "patterns")


def _runs_protocol(cfg: RunConfig, options: dict[str, Any], checks: bool) -> bool:
    """The train/test protocol runs without utility checks (as always), or beside them when it has a label.

    A label: ``evaluation.target`` or a column with role target; any other protocol key (models, folds, ...)
    also asks for the protocol (which then names the missing label itself).
    """
    if not checks or options:
        return True
    return any(entry.get("role") == "target" for entry in cfg.attributes.values())


def _utility_figures(run: Run, dataset: Any, checks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Fit the config's method on all records; the query-accuracy and pattern-survival figures of its release."""
    from anonset.evaluation import pattern_survival, query_accuracy
    from anonset.methods import registry
    from anonset.methods.base import Family
    from anonset.runs.base import ReleaseRequest

    cfg = run.config
    model = run.anonymizer(ReleaseRequest())
    if registry.get(cfg.method).family is Family.FRONT and model.member_rule() is None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases and the utility checks need"
                          " one release; state a floor such as privacy.k")
    partition = model.fit(dataset).release_.partition
    figures: dict[str, Any] = {"release": {"method": cfg.method, "records": int(partition.n_rows),
                                           "classes": int(partition.n_classes),
                                           "suppressed": int(partition.n_suppressed)}}
    q = checks.get("queries")
    if q is not None:
        accuracy = query_accuracy(dataset, partition, n_queries=q["count"], dimension=q["dimension"],
                                  selectivity=q["selectivity"], seed=q["seed"], threshold=q["threshold"])
        figures["queries"] = {**accuracy.summary(), "dimension": q["dimension"], "selectivity": q["selectivity"],
                              "seed": q["seed"], "threshold": q["threshold"]}
    p = checks.get("patterns")
    if p is not None:
        survival = pattern_survival(dataset, partition, p["target"], task=p["task"],
                                    test_fraction=p["test_fraction"], depth=p["depth"], seed=p["seed"])
        figures["patterns"] = {**survival.summary(), "target": p["target"], "test_fraction": p["test_fraction"],
                               "depth": p["depth"], "seed": p["seed"]}
    return figures


def _print_protocol(summary: dict[str, Any], out: Console) -> None:
    """The train/test protocol's table and partition statistics."""
    table = Table(title=f"{summary['method']}: {summary['score'].replace('_', ' ')} over {summary['splits']}"
                        f" split(s), label {summary['target']}")
    table.add_column("model")
    table.add_column("anonymized", justify="right")
    table.add_column("original", justify="right")
    for name, scores in summary["models"].items():
        table.add_row(name, f"{scores['anonymized']:.4f}", f"{scores['original']:.4f}")
    out.print(table)
    for key in ("classes", "average_class_size", "conditional_entropy", "imprecision", "test_unplaced"):
        if key in summary:
            out.print(f"{key.replace('_', ' ')}: {summary[key]:.4g}")


def _print_utility(summary: dict[str, Any], out: Console) -> None:
    """The utility checks of the release fitted on all records."""
    release = summary["release"]
    out.print(f"release of all {release['records']} records ({release['method']}): {release['classes']} classes,"
              f" {release['suppressed']} suppressed")
    q = summary.get("queries")
    if q is not None:
        above = q[f"share_above_{q['threshold']:g}"]
        out.print(f"queries: {q['queries']} (dimension {q['dimension']}, selectivity {q['selectivity']:g}): mean"
                  f" relative error {q['mean_relative_error']:.4g}, median {q['median_relative_error']:.4g},"
                  f" {above:.1%} above {q['threshold']:g}")
    p = summary.get("patterns")
    if p is not None:
        out.print(f"patterns (label {p['target']}, {p['score'].replace('_', ' ')} on held-out raw records):"
                  f" release tree {p['release']:.4f}, raw tree {p['raw']:.4f}; top-split overlap {p['overlap']:.2f}")
        out.print(f"  release splits: {', '.join(p['release_splits']) or 'none'}")
        out.print(f"  raw splits:     {', '.join(p['raw_splits']) or 'none'}")
