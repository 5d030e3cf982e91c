"""The shared vocabulary every layer speaks; it imports nothing of anonset above :mod:`anonset.errors`.

- :mod:`~anonset.core.dataset`: attribute specs, the dictionary-encoded :class:`Dataset`;
- :mod:`~anonset.core.hierarchy`: the :class:`Hierarchy` type, with its builders
  (:mod:`~anonset.core.hierarchy_builders`) and the ARX CSV reader
  (:mod:`~anonset.core.hierarchy_csv`), which a dataset needs to resolve its specs;
- :mod:`~anonset.core.stats`: what privacy models ask for (``StatsRequest``) and engines return (``ClassStats``);
- :mod:`~anonset.core.partition`: records -> classes with generalized values (``Partition``);
- :mod:`~anonset.core.grouping`: a partitioning method's classes and placement rule (``Grouping``);
- :mod:`~anonset.core.lattice`: the full-domain generalization lattice;

Import the modules directly; this package re-exports nothing, so importing one
of them loads only what it needs.
"""
