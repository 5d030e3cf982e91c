"""The anonymization methods, one folder per family, each registered in :mod:`anonset.methods.registry`.

- :mod:`~anonset.methods.full_domain`: searches of the full-domain lattice (optimal, exhaustive, research value);
- :mod:`~anonset.methods.pareto`: property based generalization fronts (exact sweep, PBG-EA);
- :mod:`~anonset.methods.mondrian`: multidimensional partitioning with workload-aware criteria;
- :mod:`~anonset.methods.cluster`: local recoding by clustering (k-member, Xu top-down and bottom-up).
"""
