"""Local recoding by clustering: Byun et al.'s greedy k-member and Xu et al.'s top-down and bottom-up methods."""

from __future__ import annotations

from anonset.cluster.bottomup import xu_bottom_up
from anonset.cluster.kmember import cluster_information_loss, greedy_k_member, information_loss
from anonset.cluster.topdown import xu_top_down

__all__ = ["cluster_information_loss", "greedy_k_member", "information_loss", "xu_bottom_up", "xu_top_down"]
