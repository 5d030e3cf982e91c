"""Mondrian multidimensional partitioning (LeFevre et al.) and its workload-aware split criteria.

:mod:`~anonset.methods.mondrian.regions` runs the region loop (the Python
reference) and chooses a compiled path (:mod:`~anonset.methods.mondrian.compiled.paths`):
:mod:`~anonset.methods.mondrian.compiled.kernel` the median kernel under k-anonymity,
:mod:`~anonset.methods.mondrian.compiled.grow` the general kernel, with its regions
(:mod:`~anonset.methods.mondrian.compiled.segments`), candidates
(:mod:`~anonset.methods.mondrian.compiled.offers`; per criterion
:mod:`~anonset.methods.mondrian.compiled.fill`, :mod:`~anonset.methods.mondrian.compiled.fill_workload`,
:mod:`~anonset.methods.mondrian.compiled.fill_selection`), privacy judge
(:mod:`~anonset.methods.mondrian.compiled.judge`) and numpy-order arithmetic
(:mod:`~anonset.methods.mondrian.compiled.floats`).
:mod:`~anonset.methods.mondrian.tree` is the recorded split tree that places new
records, :mod:`~anonset.methods.mondrian.split` the quasi-identifier space and
the median criterion, :mod:`~anonset.methods.mondrian.criteria` InfoGain and
LSD, :mod:`~anonset.methods.mondrian.selection` the selection criterion,
:mod:`~anonset.methods.mondrian.workload` several targets.  The imprecision
of selections over a release is a metric: :mod:`anonset.metrics.imprecision`.
"""
