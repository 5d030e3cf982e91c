"""The clustering methods under the requirements: l-diversity at group formation, weights, Byun's class penalty,
recoding of new rows, bad input.  Every release goes through the Anonymizer, so it is re-verified
independently from its own strings; pycanon gives a second opinion on k and l."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from pycanon import anonymity

from anonset import Anonymizer, ConfigError, InfeasibleError, KAnonymity, Requirements
from anonset.anonymizer import ReleaseViolation
from anonset.core.dataset import Dataset
from anonset.methods.cluster.bottomup import xu_bottom_up
from anonset.methods.cluster.constraints import constraints_for
from anonset.methods.cluster.kmember import greedy_k_member
from anonset.methods.cluster.topdown import xu_top_down
from anonset.privacy.ldiversity import l_diversity
from support import clustering_dataset, ncp_by_definition, random_table, registered

#: the clustering methods, as registered
METHODS = registered(package="cluster")


def _entropy_l(groups: pd.core.groupby.DataFrameGroupBy, sensitive: str) -> float:
    """Smallest exp(entropy) of the sensitive values over the classes (an independent entropy l)."""
    def exp_entropy(values: pd.Series) -> float:
        p = values.value_counts(normalize=True).to_numpy()
        return float(np.exp(-(p * np.log(p)).sum()))

    return float(groups[sensitive].apply(exp_entropy).min())


def _random_case(seed: int, n_rows: int) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, 3, n_sensitive_values=6)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "quasi", "type": "numeric"}
    return table, attrs


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("variant,l", [("distinct", 2), ("distinct", 3), ("entropy", 2), ("entropy", 2.5)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l_diversity_holds_in_every_class(method: str, variant: str, l: float, seed: int) -> None:
    table, attrs = _random_case(seed, 240)
    k = 3 + seed
    requirements = Requirements([KAnonymity(k), l_diversity("s", l, variant)])
    try:
        release = Anonymizer(attrs, requirements, method=method, seed=seed).fit(table).release_
    except InfeasibleError:
        # only when the whole table is not diverse enough, which the test checks independently
        counts = table["s"].value_counts(normalize=True).to_numpy()
        whole = len(counts) if variant == "distinct" else math.exp(-(counts * np.log(counts)).sum())
        assert whole < l - 1e-9
        return
    assert release.verified and release.suppressed_rows == 0
    out = release.table
    quasi = [c for c in out.columns if c not in ("s",)]
    groups = out.groupby(quasi)
    assert groups.size().min() >= k
    assert anonymity.k_anonymity(out, quasi) >= k
    if variant == "distinct":
        assert groups["s"].nunique().min() >= l
        assert anonymity.l_diversity(out, quasi, ["s"]) >= l
    else:
        assert _entropy_l(groups, "s") >= l - 1e-9


@pytest.mark.parametrize("method", METHODS)
def test_table_that_is_not_diverse_is_infeasible(method: str) -> None:
    table, attrs = _random_case(5, 100)
    table["s"] = ["a"] * 95 + ["b"] * 5  # entropy l of the whole table is about 1.22
    with pytest.raises(InfeasibleError, match="whole table violates"):
        Anonymizer(attrs, Requirements([KAnonymity(3), l_diversity("s", 2, "entropy")]), method=method).fit(table)


@pytest.mark.parametrize("method", METHODS)
def test_k_larger_than_the_table(method: str) -> None:
    table, attrs = _random_case(6, 30)
    with pytest.raises((InfeasibleError, ConfigError), match="larger than the table"):
        Anonymizer(attrs, Requirements([KAnonymity(31)]), method=method).fit(table)


@pytest.mark.parametrize("method", METHODS)
def test_models_the_methods_cannot_enforce_are_refused(method: str) -> None:
    table, attrs = _random_case(7, 60)
    with pytest.raises(ConfigError, match="cannot enforce recursive"):
        Anonymizer(attrs, Requirements([KAnonymity(3), l_diversity("s", 2, "recursive", 3)]), method=method).fit(table)
    with pytest.raises(ConfigError, match="suppresses no records"):
        Anonymizer(attrs, Requirements([KAnonymity(3)], max_suppression=0.1), method=method).fit(table)


def test_many_identical_rows_keep_the_size_bounds() -> None:
    """Duplicates must not break the greedy choice or the 2k - 1 bound (ties, zero-cost candidates)."""
    table = pd.DataFrame({"x": ["5"] * 97 + ["6"] * 3 + ["90"] * 41, "c": ["a"] * 120 + ["b"] * 21})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi"}})
    # k-member: floor(141 / 7) = 20 clusters.  Bottom-up: (6, a) x3 merges into (5, a) x97 -> 100 records;
    # (90, a) x20 and (90, b) x21 are already >= 7; splitting gives 100 // 7 + 20 // 7 + 21 // 7 = 14 + 2 + 3 = 19.
    for labels, expected in ((greedy_k_member(ds, 7), 20), (xu_bottom_up(ds, 7), 19)):
        sizes = np.bincount(labels)
        assert sizes.min() >= 7 and sizes.max() <= 13
        assert len(sizes) == expected
    sizes = np.bincount(xu_top_down(ds, 7))
    assert sizes.min() >= 7


@pytest.mark.parametrize("method", METHODS)
def test_a_heavy_weight_moves_the_loss_off_that_attribute(method: str) -> None:
    """Xu's weighted certainty penalty: weight 10 on x lowers x's own NCP (the paper's Figure 7 point)."""
    ds = clustering_dataset(11, 600, 3)

    def ncp_of_x(labels: np.ndarray) -> float:
        x = ds.encoded["x"].numbers[ds.encoded["x"].row_codes()]  # type: ignore[index]
        spread = pd.Series(x).groupby(labels).agg(lambda v: v.max() - v.min())
        sizes = np.bincount(labels)
        return float((spread.to_numpy() * sizes).sum() / (x.max() - x.min()) / len(x))

    plain = Anonymizer({}, Requirements([KAnonymity(6)]), method=method).fit(ds).grouping_.row_class
    heavy = Anonymizer({}, Requirements([KAnonymity(6)]), method=method,
                       weights={"x": 10.0}).fit(ds).grouping_.row_class
    assert ncp_of_x(heavy) < 0.5 * ncp_of_x(plain)
    # the other attributes pay for it
    assert ncp_by_definition(ds, heavy) > ncp_by_definition(ds, plain)


def test_bad_weights_are_refused() -> None:
    ds = clustering_dataset(12, 100, 2)
    with pytest.raises(ConfigError, match="'age' is not a quasi-identifier"):
        Anonymizer({}, Requirements([KAnonymity(4)]), method="xu-top-down", weights={"age": 2.0}).fit(ds)
    with pytest.raises(ConfigError, match="must be a finite number >= 0"):
        Anonymizer({}, Requirements([KAnonymity(4)]), method="k-member", weights={"x": -1.0}).fit(ds)


@pytest.mark.parametrize("method", [greedy_k_member, xu_top_down, xu_bottom_up])
def test_weights_follow_the_shared_rule(method: Callable[..., np.ndarray]) -> None:
    """The clustering methods check weights by anonset.core.weights: all zero and booleans are refused too."""
    ds = clustering_dataset(12, 60, 2)
    source = ds.source
    cases = [
        ({"age": 2.0}, f"weights: 'age' is not a quasi-identifier of {source}; weights apply to q0, q1, x"),
        ({"x": -1.0}, "weights: the weight of 'x' must be a finite number >= 0; got -1.0"),
        ({"x": float("inf")}, "weights: the weight of 'x' must be a finite number >= 0; got inf"),
        ({"x": True}, "weights: the weight of 'x' must be a finite number >= 0; got True"),
        ({"q0": 0, "q1": 0.0, "x": 0}, ("weights: every weight is 0, so every release would cost nothing; give at"
                                        " least one quasi-identifier a weight > 0")),
    ]
    for weights, message in cases:
        with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
            method(ds, 4, weights=weights)
    # zero beside a positive weight is fine
    assert len(method(ds, 4, weights={"q0": 0, "q1": 0, "x": 1})) == 60


def _labelled(seed: int, n: int) -> tuple[pd.DataFrame, dict]:
    """Records whose label depends on x, so a label-aware clustering can keep classes pure."""
    table, attrs = _random_case(seed, n)
    x = table["x"].astype(int)
    noise = np.random.default_rng(seed).random(n) < 0.15
    table["label"] = np.where((x > 25) ^ noise, "high", "low")
    attrs["label"] = {"role": "target"}
    return table, attrs


def test_class_penalty_lowers_the_classification_metric() -> None:
    """Byun's Section 3.4: with a class penalty, clusters follow the labels (lower CM), at some Total-IL cost."""
    table, attrs = _labelled(13, 900)
    reqs = Requirements([KAnonymity(8)])
    plain = Anonymizer(attrs, reqs, method="k-member").fit(table).release_
    aware = Anonymizer(attrs, reqs, method="k-member", method_options={"class_penalty": 2.0}).fit(table).release_
    assert aware.verified and plain.verified
    assert aware.metrics["cm"] < plain.metrics["cm"]
    assert aware.metrics["total_il"] >= plain.metrics["total_il"]
    # CM by hand from the release: a record costs 1 when its label is not its class's majority
    out = aware.table
    quasi = [c for c in out.columns if c not in ("s", "label")]
    majority = out.groupby(quasi)["label"].transform(lambda v: v.value_counts().index[0])
    assert aware.metrics["cm"] == pytest.approx(float((out["label"] != majority).mean()))


def test_class_penalty_needs_a_target() -> None:
    table, attrs = _random_case(14, 80)
    with pytest.raises(ConfigError, match="no column has role target"):
        Anonymizer(attrs, Requirements([KAnonymity(4)]), method="k-member",
                   method_options={"class_penalty": 1.0}).fit(table)
    with pytest.raises(ConfigError, match="option 'class_penalty' must be a number >= 0"):
        Anonymizer(attrs, Requirements([KAnonymity(4)]), method="k-member",
                   method_options={"class_penalty": -1}).fit(table)


def test_constraints_name_the_target_column() -> None:
    table, attrs = _labelled(15, 50)
    ds = Dataset(table, attrs)
    cons = constraints_for(ds, Requirements([KAnonymity(3)]), "k-member", target="label")
    assert cons.n_labels == 2 and set(np.unique(cons.labels)) == {0, 1}
    message = ("<DataFrame>: k-member class_penalty needs a class label column; 's' is a sensitive column: give it"
               " role target (targets: label)")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        constraints_for(ds, Requirements([KAnonymity(3)]), "k-member", target="s")


def test_class_penalty_with_two_targets_needs_one_named() -> None:
    """The target is resolved by anonset.core.targets: several targets and none named is refused, naming one works."""
    table, attrs = _labelled(16, 60)
    table["label2"] = table["label"].to_numpy()[::-1]
    attrs["label2"] = {"role": "target"}
    reqs = Requirements([KAnonymity(4)])
    message = ("<DataFrame>: k-member class_penalty needs one class label column and 2 have role target"
               " (label, label2); name the one to use (option target)")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        Anonymizer(attrs, reqs, method="k-member", method_options={"class_penalty": 1.0}).fit(table)
    release = Anonymizer(attrs, reqs, method="k-member",
                         method_options={"class_penalty": 1.0, "target": "label2"}).fit(table).release_
    assert release.verified and "cm" not in release.metrics  # two targets: cm is not reported on its own


# ---------------------------------------------------------------------------------------------- new rows


def _numbers_case() -> tuple[pd.DataFrame, dict]:
    table = pd.DataFrame({"x": ["1", "2", "3", "10", "11", "12"], "s": list("abcabc")})
    return table, {"x": {"role": "quasi", "type": "numeric"}, "s": {"role": "sensitive"}}


@pytest.mark.parametrize("method", METHODS)
def test_new_rows_join_the_class_that_grows_least(method: str) -> None:
    """Fitted classes {1,2,3} and {10,11,12}; 4 joins the first (grows to 1-4), 9 the second (9-12)."""
    table, attrs = _numbers_case()
    model = Anonymizer(attrs, Requirements([KAnonymity(3)]), method=method).fit(table)
    assert sorted(model.release_.table["x"].unique()) == ["1-3", "10-12"]
    new = pd.DataFrame({"x": ["4", "2", "3", "9", "11", "12"], "s": list("abcabc")})
    release = model.transform(new, return_release=True)
    assert release.verified
    assert release.table["x"].tolist() == ["1-4", "1-4", "1-4", "9-12", "9-12", "9-12"]


def test_new_rows_are_rechecked_not_assumed() -> None:
    table, attrs = _numbers_case()
    model = Anonymizer(attrs, Requirements([KAnonymity(3)]), method="k-member").fit(table)
    new = pd.DataFrame({"x": ["4", "9"], "s": ["a", "b"]})
    with pytest.raises(InfeasibleError, match="violating 3-anonymity"):
        model.transform(new, return_release=True)
    warned = Anonymizer(attrs, Requirements([KAnonymity(3)]), method="k-member", on_violation="warn").fit(table)
    with pytest.warns(ReleaseViolation):
        release = warned.transform(new, return_release=True)
    assert not release.verified
    assert release.table["x"].tolist() == ["1-4", "9-12"]


def test_transform_of_a_larger_table_is_verified_or_flagged() -> None:
    """Fit on 1,500 records, place 6,000 others: the new release is verified exactly when it is k-anonymous."""
    import warnings

    table, attrs = _random_case(21, 7500)
    model = Anonymizer(attrs, Requirements([KAnonymity(3)]), method="xu-top-down", on_violation="warn")
    model.fit(table.iloc[:1500].reset_index(drop=True))
    new = table.iloc[1500:].reset_index(drop=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = model.transform(new, return_release=True)
    flagged = any(issubclass(w.category, ReleaseViolation) for w in caught)
    sizes = release.table.groupby([q for q in attrs if q != "s"]).size()
    assert len(release.table) == 6000
    assert release.verified == bool(sizes.min() >= 3) == (not flagged)


def test_a_target_with_one_class_warns() -> None:
    table, attrs = _random_case(16, 60)
    table["label"] = "yes"
    attrs["label"] = {"role": "target"}
    with pytest.warns(UserWarning, match="one class only"):
        release = Anonymizer(attrs, Requirements([KAnonymity(4)]), method="k-member").fit(table).release_
    assert release.metrics["cm"] == 0.0


def test_a_value_the_hierarchy_does_not_cover_is_a_one_line_error(tmp_path) -> None:
    from click.testing import CliRunner

    from anonset.cli import main

    (tmp_path / "t.csv").write_text("x,c\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(20)) + "5,z\n")
    (tmp_path / "c.csv").write_text("a;*\nb;*\n")
    (tmp_path / "k.yaml").write_text("input: t.csv\nattributes:\n  x: {role: quasi, type: numeric}\n"
                                     "  c: {role: quasi, hierarchy: c.csv}\nprivacy: {k: 3}\n"
                                     "method: {name: xu-bottom-up}\noutput: {path: out.csv}\n")
    result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "k.yaml")])
    assert result.exit_code == 2
    assert "column 'c'" in result.output and "'z'" in result.output and "not in hierarchy" in result.output
    assert not (tmp_path / "out.csv").exists()
