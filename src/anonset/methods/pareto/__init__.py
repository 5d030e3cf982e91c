"""Property based generalizations (Dewri et al., 2010): trade-off fronts instead of one optimum.

Each lattice node is measured on several quality indices at once (privacy:
``k``, ``l``, ``s_k``, ``s_l``; loss: ``glm``, ``cm``) under a suppression
budget η, and the nodes no other node beats on every index (the minimal PBGs)
are reported:

- :func:`pareto_exhaustive` evaluates every node and returns the exact front,
  optionally one member per non-dominated ε-box;
- :func:`pareto_ea` runs PBG-EA (Algorithm 2 with the box-dominance archive
  of Algorithm 1) and evaluates a small share of the lattice;
- :func:`assess` measures a front against the exact one (convergence error,
  representation ratio, nodes evaluated).

Modules: :mod:`~anonset.methods.pareto.objectives` (indices, η rule, node
evaluation, the result), :mod:`~anonset.methods.pareto.dominance` (dominance,
box-dominance, the archive), :mod:`~anonset.methods.pareto.exhaustive`,
:mod:`~anonset.methods.pareto.evolutionary`, :mod:`~anonset.methods.pareto.quality`,
:mod:`~anonset.methods.pareto.release_policy` (the floors, which member is
released, and the privacy it claims).
"""
