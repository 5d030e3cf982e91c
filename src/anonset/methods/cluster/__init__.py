"""Local recoding by clustering: Byun et al.'s greedy k-member and Xu et al.'s top-down and bottom-up methods.

:mod:`~anonset.methods.cluster.qi_space` prepares the quasi-identifiers and the cost
tables, :mod:`~anonset.methods.cluster.constraints` what the methods enforce while
forming groups (k, l-diversity, class labels), :mod:`~anonset.methods.cluster.state`
the per-group state the kernels share; ``k_member.py``, ``xu_top_down.py`` and
``xu_bottom_up.py`` declare the three methods for the registry.  Import the
modules directly: this package re-exports nothing.
"""
