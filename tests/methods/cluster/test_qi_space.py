"""Tests of the clustering kernels' quasi-identifier space (anonset.methods.cluster.qi_space)."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.methods.cluster import qi_space
from anonset.methods.cluster.qi_space import lca_level, meet_tables, prepare_attributes
from support import clustering_dataset


def test_meet_tables_hold_the_walks_answer_for_every_pair_of_leaves() -> None:
    prep = prepare_attributes(clustering_dataset(3, 2000, 4))
    meets = meet_tables(prep.maps, prep.codes)
    assert (meets.offset >= 0).all()
    for a in range(prep.maps.shape[0]):
        n = int(meets.leaves[a])
        assert n == prep.codes[:, a].max() + 1
        table = meets.level[meets.offset[a]: meets.offset[a] + n * n].reshape(n, n)
        walked = np.array([[lca_level(prep.maps, a, 0, i, j) for j in range(n)] for i in range(n)])
        assert np.array_equal(table, walked)
        assert np.array_equal(table, table.T)


def test_meet_tables_skip_attributes_past_the_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    prep = prepare_attributes(clustering_dataset(3, 2000, 4))
    leaves = prep.codes.max(axis=0) + 1
    monkeypatch.setattr(qi_space, "_MEETS_LEAVES", int(np.sort(leaves)[1]))
    meets = meet_tables(prep.maps, prep.codes)
    assert ((meets.offset >= 0) == (leaves <= np.sort(leaves)[1])).all()
    monkeypatch.setattr(qi_space, "_MEETS_LEAVES", 10**6)
    monkeypatch.setattr(qi_space, "_MEETS_BUDGET", int(np.sort(leaves)[0]) ** 2)
    meets = meet_tables(prep.maps, prep.codes)
    assert (meets.offset >= 0).sum() == 1 and meets.offset[np.argmin(leaves)] == 0
    assert len(meets.level) == np.min(leaves) ** 2
