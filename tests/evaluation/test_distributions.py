"""Per-attribute information loss and value distributions of a release, against hand-computed figures."""

from __future__ import annotations

import pandas as pd
import pytest

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.evaluation.distributions import attribute_loss, value_distributions
from anonset.hierarchy import Hierarchy


def _release(method: str):  # type: ignore[no-untyped-def]
    table = pd.DataFrame({"age": ["20", "22", "24", "26", "40", "42"], "sex": ["M", "M", "F", "F", "M", "F"]})
    sex = Hierarchy.from_rows("sex", [["M", "*"], ["F", "*"]])
    ages = Hierarchy.from_rows("age", [[a, "20-29" if a.startswith("2") else "40-49", "*"]
                                       for a in ("20", "22", "24", "26", "40", "42")])
    attrs = {"age": {"role": "quasi", "hierarchy": ages}, "sex": {"role": "quasi", "hierarchy": sex}}
    model = Anonymizer(attrs, Requirements([KAnonymity(2)]), method=method).fit(table)
    return model.dataset_, model.release_


def test_the_optimal_release_by_hand() -> None:
    """Each attribute's loss follows from the node the optimal search released, computed here by hand."""
    dataset, release = _release("optimal")
    loss = attribute_loss(dataset, release.partition)
    levels = dict(release.levels)
    # age: leaves 6; a decade node holds 4 (20s) or 2 (40s) leaves: NCP = (leaves - 1) / (6 - 1) under anonset's
    # convention for hierarchies (a single leaf costs 0); sex at * costs 1, kept costs 0
    expected_age = {0: 0.0, 1: (4 * (4 - 1) / 5 + 2 * (2 - 1) / 5) / 6, 2: 1.0}[levels["age"]]
    assert loss["age"] == pytest.approx(expected_age)
    assert loss["sex"] == pytest.approx({0: 0.0, 1: 1.0}[levels["sex"]])
    dist = value_distributions(dataset, release.table)
    assert dist["age"]["before"] == {a: 1 for a in ("20", "22", "24", "26", "40", "42")}
    assert sum(dist["age"]["after"].values()) == 6 and sum(dist["sex"]["after"].values()) == 6


@pytest.mark.parametrize("method", ["optimal", "k-member", "mondrian"])
def test_the_attribute_losses_add_up_to_the_table_ncp(method: str) -> None:
    """Xu et al.'s table NCP sums every cell's penalty: records x the sum of the per-attribute means."""
    from anonset.metrics.cell_metrics import NCP

    dataset, release = _release(method)
    loss = attribute_loss(dataset, release.partition)
    assert all(0.0 <= v <= 1.0 for v in loss.values())
    assert dataset.n_rows * sum(loss.values()) == pytest.approx(NCP().score(release.partition, dataset))
