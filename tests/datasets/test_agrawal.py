"""Tests of the Agrawal et al. generator of LeFevre et al.'s Figure 6 (anonset.datasets.agrawal)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import AttributeType, Role
from anonset.datasets import (
    AgrawalConstants,
    agrawal,
    agrawal_attributes,
    agrawal_dataset,
    draw_constants,
    function2_predicates,
)
from anonset.datasets.agrawal import AGRAWAL_COLUMNS, default_constants
from anonset.errors import ConfigError


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    return agrawal(200_000, 2, seed=11)


def _numbers(table: pd.DataFrame, column: str) -> np.ndarray:
    return table[column].astype(np.int64).to_numpy()


def _uniform_counts(values: np.ndarray, low: int, high: int) -> None:
    """Every integer of [low, high] occurs, each within 10 % of its expected count."""
    counts = np.bincount(values - low, minlength=high - low + 1)
    assert values.min() == low and values.max() == high and len(counts) == high - low + 1
    expected = len(values) / (high - low + 1)
    assert np.abs(counts / expected - 1).max() < 0.1


def test_attributes_follow_figure_6(big: pd.DataFrame) -> None:
    assert list(big.columns) == [*AGRAWAL_COLUMNS, "group"]
    assert all(big[c].map(type).eq(str).all() for c in big.columns)
    n = len(big)
    salary = _numbers(big, "salary")
    assert salary.min() >= 20_000 and salary.max() <= 150_000
    assert abs(salary.mean() - 85_000) < 500 and abs(salary.std() - 130_000 / np.sqrt(12)) < 500
    commission = _numbers(big, "commission")
    assert (commission[salary >= 75_000] == 0).all()
    low = commission[salary < 75_000]
    assert low.min() >= 10_000 and low.max() <= 75_000 and abs(low.mean() - 42_500) < 500
    for column, lo, hi in (("age", 20, 80), ("elevel", 0, 4), ("car", 1, 20), ("zipcode", 0, 9), ("hyears", 1, 30)):
        _uniform_counts(_numbers(big, column), lo, hi)
    zipcode, hvalue = _numbers(big, "zipcode"), _numbers(big, "hvalue")
    assert (hvalue[zipcode == 0] == 0).all()
    h = hvalue[zipcode > 0] / (zipcode[zipcode > 0] * 100_000)
    assert h.min() >= 0.5 - 1e-5 and h.max() <= 1.5 + 1e-5 and abs(h.mean() - 1.0) < 0.01
    loan = _numbers(big, "loan")
    assert loan.min() >= 0 and loan.max() <= 500_000 and abs(loan.mean() - 250_000) < 2_000
    # the deciles of the uniform money amounts
    assert np.abs(np.quantile(loan, np.linspace(0.1, 0.9, 9)) / 500_000 - np.linspace(0.1, 0.9, 9)).max() < 0.01
    assert set(big["group"]) == {"A", "B"} and n == 200_000


# ---------------------------------------------------------------- label functions, row by row
def _in(x: float, interval: tuple[float, float]) -> bool:
    return interval[0] <= x <= interval[1]


def _label_by_hand(row: dict, c: AgrawalConstants) -> str:
    """Figure 6 written out, one record at a time."""
    salary, commission, age = float(row["salary"]), float(row["commission"]), int(row["age"])
    elevel, loan = int(row["elevel"]), float(row["loan"])
    a0, a1 = c.age_cuts
    if c.function == 7:
        return "A" if 0.67 * (salary + commission) - 0.2 * loan - 20_000 > 0 else "B"
    if c.function in (2, 6):
        x = salary if c.function == 2 else salary + commission
        first, middle, last = c.intervals
        group_a = ((age < a0 and _in(x, first)) or (a0 <= age < a1 and _in(x, middle))
                   or (age >= a1 and _in(x, last)))
        return "A" if group_a else "B"
    young_in, young_out, middle_in, middle_out, old_in, old_out = c.intervals
    if age < a0:
        group_a = _in(salary, young_in if elevel in (0, 1) else young_out)
    elif age < a1:
        group_a = _in(salary, middle_in if elevel in (1, 2, 3) else middle_out)
    else:
        group_a = _in(salary, old_in if elevel in (2, 3, 4) else old_out)
    return "A" if group_a else "B"


@pytest.mark.parametrize("function", [2, 4, 6, 7])
@pytest.mark.parametrize("random_constants", [False, True])
def test_labels_match_a_plain_reimplementation(function: int, random_constants: bool) -> None:
    for seed in range(3):
        table = agrawal(400, function, seed=seed, random_constants=random_constants)
        constants = table.attrs["constants"]
        assert constants.function == function
        if not random_constants:
            assert constants == default_constants(function)
        expected = [_label_by_hand(row, constants) for row in table.to_dict("records")]
        assert table["group"].tolist() == expected
        if not random_constants:
            assert 0.2 < (table["group"] == "A").mean() < 0.8


def test_figure_6_constants() -> None:
    # a few records labelled by hand: age 30, salary 60K is group A under function 2, 45K is not
    row = {"salary": "60000", "commission": "0", "age": "30", "elevel": "0", "loan": "0"}
    assert _label_by_hand(row, default_constants(2)) == "A"
    assert _label_by_hand({**row, "salary": "45000"}, default_constants(2)) == "B"
    assert default_constants(4).intervals[0] == (25_000, 75_000)
    assert default_constants(7) == AgrawalConstants(7)


# ---------------------------------------------------------------- seeds and random constants
def test_seed_reproducibility() -> None:
    a = agrawal(1000, 4, seed=5, random_constants=True)
    b = agrawal(1000, 4, seed=5, random_constants=True)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["constants"] == b.attrs["constants"]
    c = agrawal(1000, 4, seed=6, random_constants=True)
    assert not a.equals(c) and a.attrs["constants"] != c.attrs["constants"]
    # the records do not depend on the function when the constants are fixed
    pd.testing.assert_frame_equal(agrawal(300, 2, seed=1).drop(columns="group"),
                                  agrawal(300, 7, seed=1).drop(columns="group"))


@pytest.mark.parametrize("function", [2, 4, 6])
def test_random_constants_within_their_ranges(function: int) -> None:
    rng = np.random.default_rng(0)
    draws = [draw_constants(function, rng) for _ in range(300)]
    low, high = (30_000, 150_000) if function == 6 else (20_000, 150_000)
    ages = np.array([d.age_cuts for d in draws])
    ends = np.array([d.intervals for d in draws])
    assert ends.shape == (300, 6 if function == 4 else 3, 2)
    assert (ages >= 20).all() and (ages <= 80).all() and (ages[:, 0] <= ages[:, 1]).all()
    assert (ends >= low).all() and (ends <= high).all() and (ends[..., 0] <= ends[..., 1]).all()
    # spread over the whole range, not stuck at the defaults
    assert ages.min() <= 22 and ages.max() >= 78
    assert ends.min() < low + 5_000 and ends.max() > high - 5_000
    assert len({d.age_cuts for d in draws}) > 100
    assert draw_constants(7, rng) == default_constants(7)


def test_function2_predicates_are_group_a() -> None:
    for seed, random_constants in ((0, False), (1, True), (2, True)):
        table = agrawal(2000, 2, seed=seed, random_constants=random_constants)
        age, salary = _numbers(table, "age"), _numbers(table, "salary")
        inside = np.zeros(len(table), dtype=np.bool_)
        for rectangle in function2_predicates(table.attrs["constants"]):
            (a0, a1), (s0, s1) = rectangle["age"], rectangle["salary"]
            inside |= (a0 <= age) & (age <= a1) & (s0 <= salary) & (salary <= s1)
        assert np.array_equal(inside, (table["group"] == "A").to_numpy())
    assert function2_predicates()[0] == {"age": [20.0, 39.0], "salary": [50_000.0, 100_000.0]}
    with pytest.raises(ConfigError, match="function 2"):
        function2_predicates(default_constants(6))


# ---------------------------------------------------------------- specs and errors
def test_attribute_specs_and_dataset() -> None:
    specs = agrawal_attributes()
    assert [c for c, s in specs.items() if s.role is Role.QUASI] == list(AGRAWAL_COLUMNS)
    assert specs["group"].role is Role.TARGET
    numeric = {c for c, s in specs.items() if s.type is AttributeType.NUMERIC}
    assert numeric == {"salary", "commission", "age", "zipcode", "hvalue", "hyears", "loan"}
    ds = agrawal_dataset(3000, 6, seed=2)
    assert ds.quasi == AGRAWAL_COLUMNS and ds.n_rows == 3000
    car = ds.require_hierarchy("car")
    assert car.n_leaves == 20 and car.n_levels == 3 and car.labels[1].tolist()[0] == "1..5"
    assert ds.require_hierarchy("elevel").labels[1].tolist() == ["0..1", "2..3", "4"]


def test_elevel_is_generalized_through_its_hierarchy_as_in_figure_6() -> None:
    # Figure 6 lists elevel as "hierarchy": categorical by default, ordinal only when asked for
    assert agrawal_attributes()["elevel"].type is not AttributeType.ORDINAL
    assert agrawal_attributes("hierarchy")["elevel"].type is agrawal_attributes()["elevel"].type
    ordinal = agrawal_attributes("ordinal")["elevel"]
    assert ordinal.type is AttributeType.ORDINAL and ordinal.order == ("0", "1", "2", "3", "4")
    with pytest.raises(ConfigError, match=r"^elevel must be one of hierarchy, ordinal; got 'nominal'$"):
        agrawal_attributes("nominal")


@pytest.mark.parametrize("criterion", ["median", "infogain"])
def test_mondrian_releases_elevel_as_hierarchy_nodes_unless_declared_ordinal(criterion: str) -> None:
    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.recheck.verify import verify_release

    requirements = Requirements([KAnonymity(25)])
    nodes = {"0", "1", "2", "3", "4", "0..1", "2..3", "*"}  # the leaves and nodes of elevel's hierarchy
    released = {}
    for elevel in ("hierarchy", "ordinal"):
        ds = agrawal_dataset(2000, 4, seed=3, elevel=elevel)
        release = Anonymizer({}, requirements, method="mondrian",
                             method_options={"criterion": criterion}).fit(ds).release_
        assert release.verified and verify_release(release.table, ds, requirements, ds.n_rows).ok
        released[elevel] = set(release.table["elevel"])
    assert released["hierarchy"] <= nodes
    # cut at thresholds, the ordinal declaration releases ranges no hierarchy node covers (e.g. 1..4)
    assert released["ordinal"] - nodes


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="function 3 is not available"):
        agrawal(10, 3)
    with pytest.raises(ConfigError, match="n_rows must be >= 0"):
        agrawal(-1)
    with pytest.raises(ConfigError, match="constants are those of function 2, not 4"):
        agrawal(10, 4, constants=default_constants(2))
    with pytest.raises(ConfigError, match="not both"):
        agrawal(10, 2, constants=default_constants(2), random_constants=True)
    assert agrawal(0).shape == (0, 10)
    explicit = AgrawalConstants(2, (30, 50), ((0, 1), (0, 1), (0, 1)))
    assert (agrawal(100, 2, constants=explicit)["group"] == "B").all()
