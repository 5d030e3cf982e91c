"""PBG-EA: Dewri et al.'s evolutionary search for representative minimal PBGs (Algorithm 2).

One run, with the paper's operators:

1. The initial population holds ``population`` random nodes, the most
   specific and the most general node always among them (both are trivially
   minimal PBGs).  Every node is evaluated (once: the evaluator caches
   objective vectors) and offered to the archive (Algorithm 1, box-dominance).
2. Each iteration assigns SPEA2-style fitness on the population ∪ archive:
   ``dom_P`` is how many nodes of the union ``P`` dominates, and the fitness of
   ``P`` is the sum of ``dom`` over the nodes that dominate it (0 for every
   non-dominated node; lower is better).
3. Binary tournament on the union, ``population`` times: two nodes drawn at
   random (with replacement), the one with the lower fitness wins (the first
   drawn on a tie).
4. Recombination: the selected nodes are paired at random without
   replacement; with probability ``p_cross`` a pair swaps the levels after a
   random cut point (single-point crossover), else both pass unchanged (an odd
   node out passes unchanged).  Then single-step mutation: each level moves
   one step up or down with probability ``p_mut`` (clipped to the hierarchy's
   levels).  The result is the next population; its nodes are evaluated and
   offered to the archive.

The archive is returned.  By Theorem 1 it only holds minimal PBGs of the
nodes evaluated; the tests check this on random lattices.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.engine.base import Engine
from anonset.methods.pareto.dominance import BoxArchive, check_epsilon, dominance_matrix, orient
from anonset.methods.pareto.exhaustive import result_of
from anonset.methods.pareto.objectives import NodeEvaluator, ParetoResult, check_objectives
from anonset.privacy.base import require_int, require_number
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["pareto_ea", "spea2_fitness"]

_OWNER = "pareto-ea"


def pareto_ea(dataset: Dataset, engine: Engine | None, objectives: Sequence[str], *, eta: float,
              epsilon: Sequence[float] | None = None, population: int = 25, iterations: int = 100,
              p_cross: float = 0.8, p_mut: float | None = None, seed: int = 0, sensitive: str | None = None,
              target: str | None = None) -> ParetoResult:
    """Representative minimal PBGs found by PBG-EA.

    Parameters
    ----------
    dataset : Dataset
        The data; every quasi-identifier needs a hierarchy.
    engine : Engine or None
        Computes class statistics; None builds a :class:`~anonset.engine.NumpyEngine`.
    objectives : sequence of str
        At least two of ``k``, ``l``, ``s_k``, ``s_l``, ``glm``, ``cm``.
    eta : float
        Suppression budget, a fraction of the records in [0, 1].
    epsilon : sequence of float, optional
        Discretization vector of the archive, one positive number per
        objective; None: plain dominance (one member per distinct vector).
    population : int
        Nodes per generation (at least 2; the paper's 25).
    iterations : int
        Generations after the initial one (the paper's 100).
    p_cross : float
        Probability that a selected pair is crossed over (0.8).
    p_mut : float, optional
        Probability that a level is mutated; default 1 / number of quasi-identifiers.
    seed : int
        Seed of the random generator; equal seeds give equal runs.
    sensitive : str, optional
        Sensitive attribute of ``l`` / ``s_l`` (default: the only one).
    target : str, optional
        Class label of ``cm`` (default: the only target column).

    Returns
    -------
    ParetoResult
        The final archive; ``nodes_evaluated`` counts distinct nodes.
    """
    started = time.perf_counter()
    names = check_objectives(objectives)
    eps = check_epsilon(epsilon, len(names))
    n_pop = require_int(_OWNER, "population", population, 2)
    n_iter = require_int(_OWNER, "iterations", iterations, 0)
    cross = require_number(_OWNER, "p_cross", p_cross, 0.0, 1.0)
    d = len(dataset.quasi)
    mut = 1.0 / max(d, 1) if p_mut is None else require_number(_OWNER, "p_mut", p_mut, 0.0, 1.0)
    rng = np.random.default_rng(require_int(_OWNER, "seed", seed, 0))
    evaluator = NodeEvaluator(dataset, names, eta=eta, engine=engine, sensitive=sensitive, target=target)
    top = evaluator.lattice.max_levels
    floor = evaluator.lattice.min_levels  # each quasi-identifier's min_level (0 unless set)
    archive = BoxArchive(evaluator.maximize, eps)

    nodes = rng.integers(floor, top + 1, size=(n_pop, d))
    nodes[0] = floor
    nodes[1] = top
    with progress_task("pareto-ea: generations", total=n_iter + 1, unit="generations") as bar:
        rows = _offer(evaluator, archive, nodes)
        bar.advance()
        for _ in range(n_iter):
            union = np.concatenate([rows, archive.ids])
            fitness = spea2_fitness(orient(evaluator.values[union], evaluator.maximize))
            draws = rng.integers(0, len(union), size=(n_pop, 2))
            winners = np.where(fitness[draws[:, 0]] <= fitness[draws[:, 1]], draws[:, 0], draws[:, 1])
            selected = evaluator.levels[union[winners]]
            children = _crossover(selected, rng, cross)
            children = _mutate(children, rng, mut, floor, top)
            rows = _offer(evaluator, archive, children)
            bar.advance()
    return result_of(evaluator, archive.ids, eps, time.perf_counter() - started)


def spea2_fitness(oriented: NDArray[np.float64]) -> NDArray[np.int64]:
    """SPEA2-style fitness: for each row, the summed dominance counts of the rows that dominate it.

    Parameters
    ----------
    oriented : numpy.ndarray
        (m, r) oriented values (to minimize).

    Returns
    -------
    numpy.ndarray
        (m,) int64; 0 for the non-dominated rows, lower is better.
    """
    dominated = dominance_matrix(oriented)
    counts = dominated.sum(axis=1)
    return np.asarray(dominated.T.astype(np.int64) @ counts)


def _offer(evaluator: NodeEvaluator, archive: BoxArchive, nodes: NDArray[np.int64]) -> NDArray[np.int64]:
    """Evaluate a population and offer each node to the archive; the nodes' evaluator rows."""
    rows = evaluator.evaluate_many(nodes)
    for row in rows:
        archive.update(int(row), evaluator.values[row])
    return rows


def _crossover(selected: NDArray[np.int64], rng: np.random.Generator, p_cross: float) -> NDArray[np.int64]:
    """Single-point crossover of random disjoint pairs, each with probability ``p_cross``."""
    n, d = selected.shape
    order = rng.permutation(n)
    children = selected[order].copy()
    n_pairs = n // 2
    first, second = children[0:2 * n_pairs:2].copy(), children[1:2 * n_pairs:2].copy()
    cross = rng.random(n_pairs) < p_cross
    cut = rng.integers(1, d, size=n_pairs) if d > 1 else np.ones(n_pairs, dtype=np.int64)
    tail = (np.arange(d)[None, :] >= cut[:, None]) & cross[:, None]
    children[0:2 * n_pairs:2] = np.where(tail, second, first)
    children[1:2 * n_pairs:2] = np.where(tail, first, second)
    return children


def _mutate(nodes: NDArray[np.int64], rng: np.random.Generator, p_mut: float, floor: NDArray[np.int64],
            top: NDArray[np.int64]) -> NDArray[np.int64]:
    """Single-step mutation: each level ±1 with probability ``p_mut``, kept within floor .. top."""
    hit = rng.random(nodes.shape) < p_mut
    step = np.where(rng.random(nodes.shape) < 0.5, -1, 1)
    return cast("NDArray[np.int64]", np.clip(nodes + hit * step, floor, top))
