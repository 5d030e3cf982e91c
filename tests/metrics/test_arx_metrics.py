"""Ambiguity and KL-divergence as ARX computes them, on a table small enough to work out by hand.

Two quasi-identifiers: ``a`` with leaves x, y under ``*`` (2 leaves) and
``b`` with leaves 1, 2 under ``12`` and 3, 4 under ``34``, those under
``*`` (4 leaves); a domain of 2 × 4 = 8 combinations.  The six records are
(x,1) twice, (x,2), (y,3), (y,4) twice: input frequencies 1/3, 1/6, 1/6, 1/3.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.hierarchy import Hierarchy
from anonset.metrics import METRICS, Ambiguity, KLDivergence, PublisherPayout, make_metric
from anonset.metrics.descriptions import describe_metric
from anonset.privacy import KAnonymity, Requirements

A = Hierarchy.from_rows("a", [["x", "*"], ["y", "*"]])
B = Hierarchy.from_rows("b", [["1", "12", "*"], ["2", "12", "*"], ["3", "34", "*"], ["4", "34", "*"]])
TABLE = pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y"], "b": ["1", "1", "2", "3", "4", "4"]})


def _partition(levels: tuple[int, int], k: int, budget: float = 0.0) -> tuple[Partition, Dataset]:
    dataset = Dataset(TABLE, {"a": {"role": "quasi", "hierarchy": A}, "b": {"role": "quasi", "hierarchy": B}})
    requirements = Requirements([KAnonymity(k)], budget)
    row_class, stats = NumpyEngine(dataset).row_classes(levels)
    verdict = requirements.judge(stats, dataset.n_rows)
    return Partition.from_node(dataset.quasi, stats, verdict.kept, row_class), dataset


@pytest.mark.parametrize(("levels", "k", "budget", "ambiguity", "kl"), [
    # nothing generalized: every record stands for itself (area 1), the release is the input's distribution
    ((0, 0), 1, 0.0, 6.0, 0.0),
    # (x,12) and (y,34), 3 records each over 1 x 2 combinations: q = 3/6/2 = 1/4 for every record;
    # Σ over records p log2(p / q) = 4 x 1/3 log2(4/3) + 2 x 1/6 log2(2/3)
    ((0, 1), 3, 0.0, 3 * 2 + 3 * 2, 4 / 3 * math.log2(4 / 3) + 1 / 3 * math.log2(2 / 3)),
    # one class of 6 over the whole domain of 8: q = 1/8; 4 x 1/3 log2(8/3) + 2 x 1/6 log2(4/3)
    ((1, 2), 6, 0.0, 6 * 8, 4 / 3 * math.log2(8 / 3) + 1 / 3 * math.log2(4 / 3)),
    # 2-anonymity at the bottom with 2 records suppressed ((x,2) and (y,3)): kept records q = p (0 each);
    # suppressed ones count the domain: ambiguity 2 + 2 + 2 x 8, q = 2/6/8 = 1/24, 2 x 1/6 log2((1/6) / (1/24))
    ((0, 0), 2, 0.34, 2 + 2 + 2 * 8, 2 / 6 * math.log2(4)),
])
def test_hand_computed_figures(levels: tuple[int, int], k: int, budget: float, ambiguity: float, kl: float) -> None:
    partition, dataset = _partition(levels, k, budget)
    assert Ambiguity().score(partition, dataset) == pytest.approx(ambiguity, rel=1e-12)
    assert KLDivergence().score(partition, dataset) == pytest.approx(kl, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("levels", "k", "budget", "payout"), [
    # IL 0 everywhere; classes of 2 (p = 1/2: 300/2 - 4 > 0, the publisher loses 300/2) and of 1 (loses 300):
    # 4 x (1200 - 150) + 2 x (1200 - 300)
    ((0, 0), 1, 0.0, 4 * 1050 + 2 * 900),
    # areas 2 of a domain of 8: IL = log 2 / log 8 = 1/3; classes of 3: 6 x (1200 x 2/3 - 300/3)
    ((0, 1), 3, 0.0, 6 * 700),
    # the whole domain: IL = 1, nothing earned; one class of 6: 6 x (0 - 300/6)
    ((1, 2), 6, 0.0, -300),
    # two records suppressed earn nothing; the classes of 2 earn 1200 - 150 each
    ((0, 0), 2, 0.34, 4 * 1050),
])
def test_publisher_payout_by_hand(levels: tuple[int, int], k: int, budget: float, payout: float) -> None:
    partition, dataset = _partition(levels, k, budget)
    assert PublisherPayout().score(partition, dataset) == pytest.approx(payout, rel=1e-12)


def test_an_attack_that_does_not_pay_costs_the_publisher_nothing() -> None:
    # adversary cost 200: a class of 2 gives the adversary 300/2 - 200 < 0, so no attack; a class of 1 300 - 200 > 0
    partition, dataset = _partition((0, 0), 1)
    assert PublisherPayout(adversary_cost=200).score(partition, dataset) == pytest.approx(4 * 1200 + 2 * 900)
    with pytest.raises(ConfigError, match="adversary_gain must be a number >= 0"):
        PublisherPayout(adversary_gain=-1)


def test_an_interval_covers_its_width() -> None:
    # age without a hierarchy, released as intervals: [20, 30] covers 10, a single value 1; the domain is 45 - 20
    table = pd.DataFrame({"age": ["20", "30", "30", "45"]})
    dataset = Dataset(table, {"age": {"role": "quasi", "type": "numeric"}})
    from anonset.core.partition import Intervals

    partition = Partition(values={"age": Intervals(np.array([20.0, 45.0]), np.array([30.0, 45.0]))},
                          sizes=np.array([3, 1]), n_suppressed=0, row_class=np.array([0, 0, 0, 1]))
    assert Ambiguity().score(partition, dataset) == 3 * 10 + 1 * 1
    suppressed = Partition(values={"age": Intervals(np.array([20.0]), np.array([30.0]))}, sizes=np.array([3]),
                           n_suppressed=1, row_class=np.array([0, 0, 0, -1]))
    assert Ambiguity().score(suppressed, dataset) == 3 * 10 + 1 * 25


def test_both_are_registered_described_and_reported() -> None:
    assert METRICS["ambiguity"] is Ambiguity and METRICS["kl_divergence"] is KLDivergence
    assert METRICS["publisher_payout"] is PublisherPayout and describe_metric("publisher_payout").better == "higher"
    assert isinstance(make_metric("ambiguity"), Ambiguity)
    for name in ("ambiguity", "kl_divergence"):
        assert describe_metric(name).better == "lower"
    partition, dataset = _partition((0, 1), 3)
    without_rows = Partition(partition.values, partition.sizes, partition.n_suppressed)
    with pytest.raises(ValueError, match="record-level detail"):
        KLDivergence().score(without_rows, dataset)


def test_a_configs_costs_are_the_payout_the_release_reports(tmp_path) -> None:
    from anonset.config import load_config
    from anonset.errors import ConfigError as Refused
    from anonset.metrics import reported_metrics

    TABLE.to_csv(tmp_path / "t.csv", index=False)
    base = ("input: {path: t.csv}\nattributes: {a: {role: quasi}, b: {role: quasi}}\nprivacy: {k: 2}\n"
            "output: {path: out.csv}\n")
    (tmp_path / "run.yaml").write_text(base + "method: {name: optimal, metric: publisher_payout}\n"
                                       "publisher_payout: {publisher_benefit: 100, adversary_cost: 200}\n")
    config = load_config(tmp_path / "run.yaml")
    payout = config.metric_object
    assert isinstance(payout, PublisherPayout) and payout.publisher_benefit == 100 and payout.adversary_cost == 200
    partition, dataset = _partition((0, 0), 1)
    reported = {m.name: m for m in reported_metrics(dataset, optimized=payout)}
    assert reported["publisher_payout"] is payout  # the configured costs, not the defaults, are reported
    # classes of 2 are not attacked at a cost of 200 (300/2 - 200 < 0), those of 1 are: 4 x 100 + 2 x (100 - 300)
    assert payout.score(partition, dataset) == pytest.approx(4 * 100 + 2 * (100 - 300))
    (tmp_path / "other.yaml").write_text(base + "method: {name: optimal}\npublisher_payout: {publisher_loss: 1}\n")
    with pytest.raises(Refused, match="sets the costs of metric: publisher_payout"):
        load_config(tmp_path / "other.yaml")


def test_journalist_payout_by_hand(tmp_path) -> None:
    from anonset.config import load_config
    from anonset.privacy import PopulationKMap

    # the population: (x,1) x4, (x,2), (y,3) x3, (y,4) x2; the table holds 2, 1, 1 and 2 of them
    population = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 5, "b": ["1"] * 4 + ["2"] + ["3"] * 3 + ["4"] * 2})
    model = PopulationKMap(2, population)
    partition, dataset = _partition((0, 0), 1)
    model.validate(dataset)
    # success 1/4, 1, 1/3, 1/2 (every attack pays at a cost of 4): the publisher loses 75, 300, 100 and 150 a record
    journalist = PublisherPayout(population=model)
    assert journalist.attacker == "journalist" and PublisherPayout().attacker == "prosecutor"
    assert journalist.score(partition, dataset) == pytest.approx(2 * 1125 + 900 + 1100 + 2 * 1050)
    assert PublisherPayout().score(partition, dataset) == pytest.approx(4 * 1050 + 2 * 900)
    # in a config: the population comes from the privacy model that holds one, and is required
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    population.to_csv(tmp_path / "p.csv", index=False)
    base = ("input: {path: t.csv}\nattributes: {a: {role: quasi}, b: {role: quasi}}\n"
            "method: {name: optimal, metric: publisher_payout}\npublisher_payout: {attacker: journalist}\n")
    (tmp_path / "run.yaml").write_text(base + "privacy: {k_map: {k: 2, population: p.csv}}\n")
    config = load_config(tmp_path / "run.yaml")
    assert config.metric_object.population is config.requirements.models[0]
    (tmp_path / "bare.yaml").write_text(base + "privacy: {k: 2}\n")
    with pytest.raises(ConfigError, match="attacker: journalist reads the population"):
        load_config(tmp_path / "bare.yaml")
