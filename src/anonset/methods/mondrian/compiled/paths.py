"""Which Mondrian runs take a compiled path, and the arrays they take it with.

Mondrian (:mod:`anonset.methods.mondrian.regions`) grows its tree in one of
three ways:

1. the median criterion under k-anonymity alone: the median kernel
   (:mod:`anonset.methods.mondrian.compiled.kernel`, quickselect, no sorting);
2. any built-in criterion (``median``, ``infogain``, ``lsd``, ``selection``)
   under k-anonymity, distinct, entropy or recursive (c, l)-diversity,
   t-closeness (equal, ordered or hierarchical distance) and squared-error
   diversity, in any combination: the general kernel
   (:func:`anonset.methods.mondrian.grow.grow`), which :func:`compiled_grow` prepares;
3. anything else — a criterion object of another class (or a subclass, or
   one built with another ``min_size`` than k, or a selection criterion that
   has served a run already), or a privacy model of another class: the Python
   loop over regions, the reference implementation.

Paths 1 and 2 give the releases of path 3: the same candidates in the same
order, the same tie-breaks and the same floating-point decisions.  Scores
are computed with the same operations in the same order
(:mod:`anonset.methods.mondrian.compiled.floats`); two exceptions can change a
decision, both only at the last bit of a float:

- the hierarchical t-closeness distance adds a node's children in leaf order,
  numpy's matrix product perhaps in another (:mod:`anonset.methods.mondrian.compiled.judge`);
  a verdict can differ only for a distance within about 1e-15 of ``t + 1e-9``;
- the logarithm of the InfoGain scores and of entropy l-diversity is the C
  library's; numpy uses the same for float64 unless the processor has
  AVX-512, where numpy has its own.  A score is rounded to 12 decimals, so a
  last-bit difference matters only when it crosses a rounding boundary and
  then decides between two candidates whose scores tie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.attribute_space import AttributeSpace
from anonset.methods.mondrian.compiled.fill import INFOGAIN, LSD, MEDIAN, SELECTION, CriterionArrays, criterion
from anonset.methods.mondrian.compiled.fill_selection import selection_arrays
from anonset.methods.mondrian.compiled.fill_workload import infogain_arrays, lsd_arrays
from anonset.methods.mondrian.compiled.grow import grow
from anonset.methods.mondrian.compiled.judge import model_arrays
from anonset.methods.mondrian.compiled.kernel import GrownKernel, KernelSpace
from anonset.methods.mondrian.criteria import InfoGainCriterion, LSDCriterion
from anonset.methods.mondrian.selection import SelectionCriterion
from anonset.methods.mondrian.split import MedianCriterion, SplitCriterion

if TYPE_CHECKING:
    from anonset.core.dataset import Dataset
    from anonset.privacy.base import Requirements

__all__ = ["compiled_grow", "criterion_arrays", "kernel_space"]


def kernel_space(space: AttributeSpace) -> KernelSpace:
    """The arrays of the attribute space the kernels read."""
    return KernelSpace(values=space.values, span=space.span, codes=space.codes, maps=space.maps, share=space.share,
                       top=space.top, numeric=space.numeric, column=space.column, weight=space.weight)


def criterion_arrays(rule: SplitCriterion, width: int, k: int) -> CriterionArrays | None:
    """The arrays of a built-in criterion whose candidates keep k records a side; None for any other criterion."""
    kind = type(rule)
    if kind is MedianCriterion:
        return criterion(MEDIAN)
    if kind is InfoGainCriterion:
        assert isinstance(rule, InfoGainCriterion)
        if rule.min_size != k:
            return None
        return criterion(INFOGAIN, infogain=infogain_arrays(rule.classes, rule.n_classes, rule.joint, width))
    if kind is LSDCriterion:
        assert isinstance(rule, LSDCriterion)
        return criterion(LSD, lsd=lsd_arrays(rule.values, width)) if rule.min_size == k else None
    if kind is SelectionCriterion:
        assert isinstance(rule, SelectionCriterion)
        then = criterion_arrays(rule.then, width, k)
        if then is None or then.kind == SELECTION or rule.min_size != k or rule.handed_over.any():
            return None  # a selection handing over to a selection: the Python loop
        return then._replace(kind=SELECTION, then=then.kind, selection=selection_arrays(rule.selections, width))
    return None


def compiled_grow(dataset: Dataset, space: AttributeSpace, requirements: Requirements, criterion: SplitCriterion,
                  strict: bool) -> GrownKernel | None:
    """The tree by the general kernel, or None when the criterion or a model has no compiled form.

    The models must have been validated (t-closeness reads the table's distribution then).
    """
    models = model_arrays(dataset, requirements)
    arrays = criterion_arrays(criterion, space.maps.shape[2], requirements.k)
    if models is None or arrays is None:
        return None
    n = space.n_rows
    order = (np.stack([np.argsort(row, kind="stable") for row in space.values]).astype(np.int64) if len(space.values)
             else np.zeros((0, n), dtype=np.int64))
    keys = arrays.infogain.joint[order] if arrays.then == INFOGAIN else np.zeros((0, n), dtype=np.int64)
    return grow(kernel_space(space), np.ascontiguousarray(order), np.ascontiguousarray(keys), arrays,
                models, n, requirements.k, strict)
