"""Local recoding by clustering: Byun et al.'s greedy k-member and Xu et al.'s top-down and bottom-up methods.

:mod:`~anonset.methods.cluster.qi_space` prepares the quasi-identifiers and the cost
tables, :mod:`~anonset.methods.cluster.constraints` what the methods enforce while
forming groups (k, l-diversity, class labels), :mod:`~anonset.methods.cluster.state`
the per-group state the kernels share; ``k_member.py``, ``xu_top_down.py`` and
``xu_bottom_up.py`` declare the three methods for the registry.  Import the
modules directly: this package re-exports nothing.

In the kernels, an integer that starts as a constant and reaches another
kernel (a group index, a level, a count) is written ``int(np.int64(0))``, not
``0``: numba types a bare constant as a literal while it infers a kernel's
types, and compiles every kernel the constant reaches once more for that
literal type (twenty compilations of the k-member and Xu kernels, seconds of
``anonset compile``, before these were written so); ``int`` keeps the type
checker's view of it a plain int.
"""
