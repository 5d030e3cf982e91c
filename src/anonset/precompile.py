"""Compile every method's kernels before the first real run (``anonset compile``).

anonset's hot loops are numba kernels, compiled to machine code the first
time a process calls them and then kept in numba's on-disk cache.  Without
this step the first run of each method after installing pays that
compilation (seconds per method, the most for the clustering and Mondrian
kernels).  Each method declares its warm-ups (``Method.warm_ups``: one
:class:`~anonset.methods.base.WarmUp` per privacy model, split criterion or
target that selects other kernels); :func:`precompile` runs those of every
registered method, or of the methods named, on a few hundred records of the
built-in synthetic patient register; afterwards every kernel a run on real
data calls is in the cache.  ``make demo`` and ``make test`` run it once
after installing; after a ``pip install`` run ``anonset compile`` once.  The
cache stays valid until anonset or numba is upgraded (numba then recompiles
what changed, on first use).
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import AttributeSpec, Role
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.errors import AnonsetWarning
from anonset.methods import registry
from anonset.methods.base import Family, WarmUp
from anonset.privacy import Requirements

__all__ = ["WarmUpRun", "kernel_jobs", "kernel_kind", "kernel_sets", "precompile", "warm_up_runs"]


@dataclass(frozen=True)
class WarmUpRun:
    """One warm-up of one method: what :func:`precompile` runs and ``anonset compile`` prints."""

    method: str
    warm_up: WarmUp

    @property
    def label(self) -> str:
        """The method's name, then what the warm-up selects (``mondrian, infogain``)."""
        return f"{self.method}, {self.warm_up.label}" if self.warm_up.label else self.method


def warm_up_runs(methods: Iterable[str] | None = None) -> tuple[WarmUpRun, ...]:
    """The warm-ups of every registered method (or of ``methods``, in the registry's order), method by method.

    An unknown name is a ``ConfigError`` listing the registered ones.
    """
    names = registry.names()
    if methods is not None:
        chosen = {registry.get(name).name for name in methods}
        names = tuple(n for n in names if n in chosen)
    return tuple(WarmUpRun(name, warm_up) for name in names for warm_up in registry.get(name).warm_ups)


def kernel_kind(method: str) -> str:
    """Which kernels a method's warm-ups compile: runs of different kinds share none, so they compile in parallel.

    The full-domain and front families share the lattice's kernels; a
    partitioning method has the kernels of its package (Mondrian's, the
    clustering methods').
    """
    if registry.get(method).family is not Family.GROUPING:
        return "lattice"
    return registry.origin(method).rpartition(".")[0]


def kernel_sets(runs: Sequence[WarmUpRun] | None = None) -> list[list[int]]:
    """Indices of ``runs`` (default: every warm-up) in sets that compile apart, the longest set first.

    A set holds the runs of one kind of kernels (:func:`kernel_kind`) that
    name the same ``kernels`` (:class:`~anonset.methods.base.WarmUp`), in
    the order declared; sets are ordered by the sum of their runs' declared
    ``seconds``, the order in which :func:`kernel_jobs` shares them out.
    """
    runs = warm_up_runs() if runs is None else runs
    sets: dict[tuple[str, str], list[int]] = {}
    for i, run in enumerate(runs):
        sets.setdefault((kernel_kind(run.method), run.warm_up.kernels), []).append(i)
    return sorted(sets.values(), key=lambda indices: -sum(runs[i].warm_up.seconds for i in indices))


def kernel_jobs(runs: Sequence[WarmUpRun], jobs: int) -> list[list[int]]:
    """Indices of ``runs`` shared among at most ``jobs`` processes: whole sets (:func:`kernel_sets`), longest first.

    Each set goes to the job with the fewest declared ``seconds`` so far (the
    longest-processing-time rule); a job runs its sets one after the other.
    Jobs left without a set are not returned.
    """
    shares: list[list[int]] = [[] for _ in range(max(jobs, 1))]
    loads = [0.0] * len(shares)
    for indices in kernel_sets(runs):
        least = loads.index(min(loads))
        shares[least] += indices
        loads[least] += sum(runs[i].warm_up.seconds for i in indices)
    return [share for share in shares if share]


def _attributes(specs: dict[str, AttributeSpec], warm_up: WarmUp) -> dict[str, AttributeSpec]:
    """The register's specs with the warm-up's targets, and its sensitive column made sensitive."""
    attributes = dict(specs)
    roles = {column: Role.TARGET for column in warm_up.targets}
    if attributes[warm_up.sensitive].role is not Role.SENSITIVE:
        roles[warm_up.sensitive] = Role.SENSITIVE
    for column, role in roles.items():
        attributes[column] = dataclasses.replace(attributes[column], role=role)
    return attributes


def precompile(rows: int = 400, runs: Sequence[WarmUpRun] | None = None,
               progress: Callable[[WarmUpRun, float], None] | None = None) -> list[tuple[WarmUpRun, float]]:
    """Run each warm-up (default: every registered method's) on ``rows`` synthetic records; the seconds each took.

    A partitioning method also places fifty of the records in its classes (``transform``, which
    runs kernels of its own; classes that few records leave below k only warn here).

    The seconds are its compilation, mostly.  The warnings of the warm-ups' releases (an attribute
    generalized away, concentrated suppression) are not shown: they are about synthetic records.
    """
    runs = warm_up_runs() if runs is None else runs
    table = patient_register(rows, seed=0)
    specs = patient_register_attributes(table)
    done: list[tuple[WarmUpRun, float]] = []
    for run in runs:
        warm_up = run.warm_up
        started = time.perf_counter()
        requirements = Requirements(warm_up.privacy_models(), warm_up.max_suppression)
        anonymizer = Anonymizer(_attributes(specs, warm_up), requirements, method=run.method,
                                method_options=dict(warm_up.options), on_violation="warn")
        with warnings.catch_warnings():  # what the release of a warm-up lost tells nobody anything
            warnings.simplefilter("ignore", AnonsetWarning)
            anonymizer.fit(table)
            if registry.get(run.method).family is Family.GROUPING:  # placing new records in the classes: kernels too
                anonymizer.transform(table.head(50))
        seconds = time.perf_counter() - started
        done.append((run, seconds))
        if progress is not None:
            progress(run, seconds)
    return done
