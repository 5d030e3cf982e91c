"""Local recoding by clustering: Byun et al.'s greedy k-member and Xu et al.'s top-down and bottom-up methods.

:mod:`~anonset.core.qi_space` prepares the quasi-identifiers and the cost
tables, :mod:`~anonset.methods.cluster.constraints` what the methods enforce while
forming groups (k, l-diversity, class labels), :mod:`~anonset.methods.cluster.state`
the per-group state the kernels share.
"""

from __future__ import annotations

from anonset.methods.cluster.bottomup import xu_bottom_up
from anonset.methods.cluster.constraints import GroupConstraints, constraints_for
from anonset.methods.cluster.kmember import (
           cluster_information_loss,
           greedy_k_member,
           information_loss,
)
from anonset.methods.cluster.topdown import xu_top_down

__all__ = ["GroupConstraints", "cluster_information_loss", "constraints_for", "greedy_k_member", "information_loss",
           "xu_bottom_up", "xu_top_down"]
