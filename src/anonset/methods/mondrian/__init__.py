"""Mondrian multidimensional partitioning (LeFevre et al.) and its workload-aware split criteria.

:mod:`~anonset.methods.mondrian.regions` runs the region loop,
:mod:`~anonset.methods.mondrian.kernel` its compiled split search,
:mod:`~anonset.methods.mondrian.tree` the recorded split tree that places new
records, :mod:`~anonset.methods.mondrian.split` the quasi-identifier space and
the median criterion, :mod:`~anonset.methods.mondrian.criteria` InfoGain and
LSD, :mod:`~anonset.methods.mondrian.selection` the selection criterion,
:mod:`~anonset.methods.mondrian.workload` several targets.  The imprecision
of selections over a release is a metric: :mod:`anonset.metrics.imprecision`.
"""
