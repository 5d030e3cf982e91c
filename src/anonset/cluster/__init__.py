"""Clustering-based k-anonymization (Byun et al.'s greedy k-member clustering)."""

from __future__ import annotations

from anonset.cluster.kmember import cluster_information_loss, greedy_k_member, information_loss

__all__ = ["cluster_information_loss", "greedy_k_member", "information_loss"]
