"""Compile every method's kernels before the first real run (``anonset compile``).

anonset's hot loops are numba kernels, compiled to machine code the first
time a process calls them and then kept in numba's on-disk cache.  Without
this step the first run of each method after installing pays that
compilation (seconds per method, the most for the clustering and Mondrian
kernels).  :func:`precompile` runs every registered method, with each kind
of privacy model and split criterion that selects other kernels, on a few
hundred records of the built-in synthetic patient register; afterwards every
kernel a run on real data calls is in the cache.  ``make demo`` and
``make test`` run it once after installing; after a ``pip install`` run
``anonset compile`` once.  The cache stays valid until anonset or numba is
upgraded (numba then recompiles what changed, on first use).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import AttributeSpec, AttributeType, Role
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.methods import registry
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    Requirements,
    TCloseness,
)

__all__ = ["WARM_UPS", "WarmUp", "precompile", "shares"]


@dataclass(frozen=True)
class WarmUp:
    """One run that compiles a set of kernels: a method, its models, options and column roles."""

    label: str
    method: str
    models: Callable[[], Sequence[PrivacyModel]]
    max_suppression: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    roles: dict[str, Role] = field(default_factory=dict)


def _k() -> list[PrivacyModel]:
    return [KAnonymity(3)]


def _k_distinct() -> list[PrivacyModel]:
    return [KAnonymity(3), DistinctLDiversity("diagnosis", 2)]


def _k_entropy() -> list[PrivacyModel]:
    return [KAnonymity(3), EntropyLDiversity("diagnosis", 1.5)]


def _k_equal_t() -> list[PrivacyModel]:
    return [KAnonymity(3), TCloseness("diagnosis", 0.5, "equal")]


def _k_ordered_t() -> list[PrivacyModel]:
    return [KAnonymity(3), TCloseness("length_of_stay", 0.5, "ordered")]


_LOS_SENSITIVE = {"length_of_stay": Role.SENSITIVE}
_FULL_DOMAIN = ("optimal", "exhaustive", "rv-global", "rv-local", "rv-hybrid", "rv-partitioned")
_CLUSTERING = ("k-member", "xu-top-down", "xu-bottom-up")

#: The runs :func:`precompile` makes, in order.
WARM_UPS: tuple[WarmUp, ...] = (
    *(WarmUp(f"{m}, k-anonymity with suppression", m, _k, 0.02) for m in _FULL_DOMAIN),
    WarmUp("optimal, entropy l-diversity", "optimal", _k_entropy, 0.02),
    WarmUp("optimal, t-closeness (equal)", "optimal", _k_equal_t, 0.02),
    WarmUp("optimal, t-closeness (ordered)", "optimal", _k_ordered_t, 0.02, roles=_LOS_SENSITIVE),
    WarmUp("pareto-exhaustive", "pareto-exhaustive", _k, 0.02),
    WarmUp("pareto-ea", "pareto-ea", _k, 0.02, {"population": 6, "iterations": 3}),
    *(WarmUp(f"{m}, k-anonymity", m, _k) for m in _CLUSTERING),
    *(WarmUp(f"{m}, distinct l-diversity", m, _k_distinct) for m in _CLUSTERING),
    *(WarmUp(f"{m}, entropy l-diversity", m, _k_entropy) for m in _CLUSTERING),
    WarmUp("xu-bottom-up, merge cost increase", "xu-bottom-up", _k, options={"merge_cost": "increase"}),
    WarmUp("mondrian, median", "mondrian", _k),
    WarmUp("mondrian, median relaxed", "mondrian", _k, options={"strict": False}),
    WarmUp("mondrian, entropy l-diversity", "mondrian", _k_entropy),
    WarmUp("mondrian, t-closeness (equal)", "mondrian", _k_equal_t),
    WarmUp("mondrian, infogain", "mondrian", _k, options={"criterion": "infogain"},
           roles={"diagnosis": Role.TARGET}),
    WarmUp("mondrian, infogain relaxed", "mondrian", _k, options={"criterion": "infogain", "strict": False},
           roles={"diagnosis": Role.TARGET}),
    WarmUp("mondrian, lsd", "mondrian", _k, options={"criterion": "lsd"},
           roles={"length_of_stay": Role.TARGET}),
    WarmUp("mondrian, infogain, entropy l-diversity", "mondrian", _k_entropy, options={"criterion": "infogain"},
           roles={"marital_status": Role.TARGET}),
    WarmUp("mondrian, lsd, entropy l-diversity", "mondrian", _k_entropy, options={"criterion": "lsd"},
           roles={"length_of_stay": Role.TARGET}),
    WarmUp("mondrian, selection", "mondrian", _k, options={"criterion": "selection", "selections": [{"age": [40, 60]}]},
           roles={"diagnosis": Role.TARGET}),
    WarmUp("mondrian, selection, entropy l-diversity", "mondrian", _k_entropy,
           options={"criterion": "selection", "selections": [{"age": [40, 60]}]},
           roles={"marital_status": Role.TARGET}),
)


#: Which kernels a method's runs compile: runs of different kinds share no kernel, so they compile in parallel.
_KIND = {"mondrian": "mondrian", "k-member": "clustering", "xu-top-down": "clustering", "xu-bottom-up": "clustering"}


def shares(jobs: int, runs: Sequence[WarmUp] = WARM_UPS) -> list[list[int]]:
    """Indices of ``runs`` split into at most ``jobs`` lists, runs of one kind (shared kernels) kept together."""
    kinds: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        kinds.setdefault(_KIND.get(run.method, "lattice"), []).append(i)
    out: list[list[int]] = [[] for _ in range(max(1, min(jobs, len(kinds))))]
    for indices in sorted(kinds.values(), key=len, reverse=True):
        min(out, key=len).extend(indices)
    return [sorted(share) for share in out]


def precompile(rows: int = 400, runs: Sequence[WarmUp] = WARM_UPS,
               progress: Callable[[WarmUp, float], None] | None = None) -> list[tuple[WarmUp, float]]:
    """Run each warm-up on ``rows`` synthetic records; the seconds each took (its compilation, mostly).

    Every registered method must have a warm-up (a method added without one
    would compile on its users' first run): a missing one is a RuntimeError.
    """
    missing = sorted(set(registry.names()) - {r.method for r in runs})
    if runs is WARM_UPS and missing:
        raise RuntimeError(f"no warm-up for the method(s) {', '.join(missing)}: add them to WARM_UPS")
    table = patient_register(rows, seed=0)
    specs = patient_register_attributes(table)
    done: list[tuple[WarmUp, float]] = []
    for run in runs:
        attributes: dict[str, AttributeSpec] = dict(specs)
        for column, role in run.roles.items():
            kind = AttributeType.NUMERIC if column == "length_of_stay" else attributes[column].type
            attributes[column] = dataclasses.replace(attributes[column], role=role, type=kind)
        started = time.perf_counter()
        requirements = Requirements(list(run.models()), run.max_suppression)
        anonymizer = Anonymizer(attributes, requirements, method=run.method, method_options=run.options)
        anonymizer.fit(table)
        seconds = time.perf_counter() - started
        done.append((run, seconds))
        if progress is not None:
            progress(run, seconds)
    return done
