"""Tests for the Hierarchy type, the ARX CSV reader/writer and the hierarchy builders."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonset.errors import ConfigError, HierarchyError, InputError
from anonset.hierarchy import (
    Hierarchy,
    build_hierarchy,
    date_hierarchy,
    flat_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    natural_sorted,
    ordered_grouping_hierarchy,
    read_hierarchy,
    write_hierarchy,
)
from support import require_adult


def ancestors(h: Hierarchy, leaf: str) -> list[str]:
    """Labels of ``leaf`` at every level, read through the int maps (not via rows())."""
    code = h.leaf_code(leaf)
    assert code is not None, leaf
    return [str(h.labels[j][h.maps[j][code]]) for j in range(h.n_levels)]


def check_tree(h: Hierarchy) -> None:
    """Single root, identity leaf map, and every node has exactly one parent."""
    assert h.size(h.max_level) == 1
    assert np.array_equal(h.maps[0], np.arange(h.n_leaves))
    for j in range(h.n_levels - 1):
        parent_of: dict[int, int] = {}
        for child, parent in zip(h.maps[j], h.maps[j + 1], strict=True):
            assert parent_of.setdefault(int(child), int(parent)) == int(parent)


# ============================================================================ Hierarchy.from_rows
ROWS = [
    ["a1", "a", "*"],
    ["a2", "a", "*"],
    ["b1", "b", "*"],
]


def test_from_rows_builds_maps_and_labels():
    h = Hierarchy.from_rows("x", ROWS)
    assert h.n_levels == 3 and h.max_level == 2 and h.n_leaves == 3
    assert h.leaves == ["a1", "a2", "b1"]
    assert [h.size(j) for j in range(3)] == [3, 2, 1]
    assert list(h.maps[1]) == [0, 0, 1]
    assert list(h.labels[1]) == ["a", "b"]
    assert h.maps[1].dtype == np.int32
    assert h.leaf_code("b1") == 2 and h.leaf_code("zzz") is None
    assert list(h.generalize(np.array([2, 0, 1]), 1)) == [1, 0, 0]
    assert list(h.label(1, np.array([1, 0]))) == ["b", "a"]


def test_leaf_counts_and_parent_map():
    h = Hierarchy.from_rows("x", ROWS)
    assert [list(c) for c in h.leaf_counts] == [[1, 1, 1], [2, 1], [3]]
    assert list(h.parent_map(0, 1)) == [0, 0, 1]
    assert list(h.parent_map(1, 2)) == [0, 0]
    assert list(h.parent_map(0, 2)) == [0, 0, 0]
    assert list(h.parent_map(1, 1)) == [0, 1]
    with pytest.raises(ValueError):
        h.parent_map(2, 1)


def test_rows_round_trip():
    h = Hierarchy.from_rows("x", ROWS)
    assert h.rows() == ROWS
    again = Hierarchy.from_rows("x", h.rows())
    assert again.rows() == ROWS


def test_with_extra_leaves():
    h = Hierarchy.from_rows("x", ROWS, source="f.csv")
    h2 = h.with_extra_leaves(["?"])
    assert h2.rows() == ROWS + [["?", "?", "*"]]
    assert h2.source == "f.csv"
    assert h.n_leaves == 3  # the original is unchanged
    with pytest.raises(HierarchyError, match="'a1'"):
        h.with_extra_leaves(["a1"])


def test_from_rows_ragged():
    with pytest.raises(HierarchyError, match=r"line 2 \('b'\).*has 2 levels but line 1 has 3"):
        Hierarchy.from_rows("x", [["a", "g", "*"], ["b", "*"]])


def test_from_rows_two_parents():
    rows = [["a1", "a", "g1", "*"], ["a2", "a", "g2", "*"]]
    with pytest.raises(
        HierarchyError, match=r"value 'a' at level 1 has two parents.*'g1' and 'g2'"
    ):
        Hierarchy.from_rows("x", rows)


def test_from_rows_two_roots():
    with pytest.raises(HierarchyError, match=r"2 values \('\*', 'ALL'\).*single root"):
        Hierarchy.from_rows("x", [["a", "*"], ["b", "ALL"]])


def test_from_rows_duplicate_leaf():
    with pytest.raises(HierarchyError, match=r"line 3: value 'a' is listed twice \(also line 1\)"):
        Hierarchy.from_rows("x", [["a", "*"], ["b", "*"], ["a", "*"]])


def test_from_rows_empty():
    with pytest.raises(HierarchyError, match=r"hierarchy 'age' \(f.csv\) is empty"):
        Hierarchy.from_rows("age", [], source="f.csv")


def test_errors_are_input_errors():
    assert issubclass(HierarchyError, InputError) and issubclass(ConfigError, InputError)


def test_flat():
    h = Hierarchy.flat("sex", ["Male", "Female"])
    assert h.rows() == [["Male", "*"], ["Female", "*"]]


# ============================================================================ files
def test_write_read_round_trip(tmp_path):
    h = Hierarchy.from_rows("x", ROWS)
    path = tmp_path / "x.csv"
    write_hierarchy(h, path)
    assert path.read_text(encoding="utf-8") == "a1;a;*\na2;a;*\nb1;b;*\n"
    back = read_hierarchy(path)
    assert back.name == "x" and back.source == str(path)
    assert back.rows() == ROWS


def test_read_keeps_strings_exactly(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("007;0-9;*\n padded;p;*\nZürich;CH;*\n", encoding="utf-8")
    h = read_hierarchy(path, name="town")
    assert h.name == "town"
    assert h.leaves == ["007", " padded", "Zürich"]
    assert h.leaf_code("7") is None and h.leaf_code("padded") is None
    out = tmp_path / "out.csv"
    write_hierarchy(h, out)
    assert read_hierarchy(out).rows() == h.rows()


def test_read_missing_file(tmp_path):
    with pytest.raises(HierarchyError, match="not found"):
        read_hierarchy(tmp_path / "nope.csv")


def test_read_adult_age():
    h = read_hierarchy(require_adult() / "hierarchies" / "age.csv")
    assert h.name == "age"
    assert h.n_levels == 5
    assert [h.size(j) for j in range(5)] == [100, 20, 10, 5, 1]
    assert h.leaves[:3] == ["1", "2", "3"]
    assert ancestors(h, "17") == ["17", "15-19", "10-19", "0-19", "*"]
    check_tree(h)


@pytest.mark.parametrize("attr", ["education", "workclass", "native-country", "sex", "race"])
def test_read_adult_others(attr):
    h = read_hierarchy(require_adult() / "hierarchies" / f"{attr}.csv")
    check_tree(h)
    assert str(h.labels[-1][0]) == "*"


# ============================================================================ interval builder
def test_intervals_widths_hand_checked():
    values = [str(v) for v in range(17, 46)]
    h = interval_hierarchy("age", values, widths=[10, 20])
    # start = largest multiple of 20 <= 17 = 0
    assert h.n_levels == 4
    assert list(h.labels[1]) == ["10-19", "20-29", "30-39", "40-49"]
    assert list(h.labels[2]) == ["0-19", "20-39", "40-59"]
    assert ancestors(h, "17") == ["17", "10-19", "0-19", "*"]
    assert ancestors(h, "39") == ["39", "30-39", "20-39", "*"]
    assert ancestors(h, "40") == ["40", "40-49", "40-59", "*"]
    assert h.source == "intervals(widths=[10, 20])"
    check_tree(h)


def test_intervals_start():
    h = interval_hierarchy("age", ["30", "34", "35", "44"], widths=[5, 10], start=30)
    assert ancestors(h, "34") == ["34", "30-34", "30-39", "*"]
    assert ancestors(h, "35") == ["35", "35-39", "30-39", "*"]
    assert ancestors(h, "44") == ["44", "40-44", "40-49", "*"]
    h = interval_hierarchy("age", ["30", "34", "35", "44"], widths=[5, 10], start=2)
    assert ancestors(h, "34") == ["34", "32-36", "32-41", "*"]
    assert ancestors(h, "44") == ["44", "42-46", "42-51", "*"]


def test_intervals_leaves_sorted_numerically_and_kept_as_given():
    h = interval_hierarchy("n", ["10", "9", "007", "9", "10.0"], widths=[10])
    assert h.leaves == ["007", "9", "10", "10.0"]
    assert ancestors(h, "007") == ["007", "0-9", "*"]
    assert ancestors(h, "10.0") == ["10.0", "10-19", "*"]


def test_intervals_bottom_top():
    values = ["5", "17", "18", "25", "64", "65", "90"]
    h = interval_hierarchy("age", values, widths=[10, 20], bottom=18, top=65)
    assert ancestors(h, "5") == ["5", "<18", "<18", "*"]
    assert ancestors(h, "17") == ["17", "<18", "<18", "*"]
    # [10, 20) cut by the bottom code at 18 leaves 18-19
    assert ancestors(h, "18") == ["18", "18-19", "18-19", "*"]
    assert ancestors(h, "25") == ["25", "20-29", "20-39", "*"]
    assert ancestors(h, "64") == ["64", "60-64", "60-64", "*"]
    assert ancestors(h, "65") == ["65", ">=65", ">=65", "*"]
    assert ancestors(h, "90") == ["90", ">=65", ">=65", "*"]
    check_tree(h)


def test_intervals_non_integer_values():
    h = interval_hierarchy("x", ["0.3", "0.1", "0.25", "1e0", "0.95"], widths=[0.1, 0.5])
    assert h.leaves == ["0.1", "0.25", "0.3", "0.95", "1e0"]
    # exact arithmetic: 0.3 is in [0.3, 0.4), not in [0.2, 0.3)
    assert ancestors(h, "0.3") == ["0.3", "[0.3, 0.4)", "[0, 0.5)", "*"]
    assert ancestors(h, "0.25") == ["0.25", "[0.2, 0.3)", "[0, 0.5)", "*"]
    assert ancestors(h, "0.95") == ["0.95", "[0.9, 1)", "[0.5, 1)", "*"]
    assert ancestors(h, "1e0") == ["1e0", "[1, 1.1)", "[1, 1.5)", "*"]
    check_tree(h)


def test_intervals_non_integer_with_top():
    h = interval_hierarchy("x", ["1.5", "2.5", "7.5"], widths=[5], top=7.5)
    assert [ancestors(h, v)[1] for v in h.leaves] == ["[0, 5)", "[0, 5)", ">=7.5"]


def test_intervals_negative_integers():
    h = interval_hierarchy("t", ["-3", "4"], widths=[5])
    assert ancestors(h, "-3") == ["-3", "-5--1", "*"]
    assert ancestors(h, "4") == ["4", "0-4", "*"]


def test_intervals_cuts():
    values = ["5", "17", "18", "25", "64", "65", "90"]
    h = interval_hierarchy("age", values, cuts=[[18, 30, 65], [30]])
    assert ancestors(h, "5") == ["5", "<18", "<30", "*"]
    assert ancestors(h, "18") == ["18", "18-29", "<30", "*"]
    assert ancestors(h, "25") == ["25", "18-29", "<30", "*"]
    assert ancestors(h, "64") == ["64", "30-64", ">=30", "*"]
    assert ancestors(h, "65") == ["65", ">=65", ">=30", "*"]
    assert h.source == "intervals(cuts=[[18, 30, 65], [30]])"
    check_tree(h)


def test_intervals_cuts_with_bottom_and_unsorted_points():
    h = interval_hierarchy(
        "age", ["10", "20", "40", "70"], cuts=[[50, 30], [30]], bottom=15, top=60
    )
    assert ancestors(h, "10") == ["10", "<15", "<15", "*"]
    assert ancestors(h, "20") == ["20", "15-29", "15-29", "*"]
    assert ancestors(h, "40") == ["40", "30-49", "30-59", "*"]
    assert ancestors(h, "70") == ["70", ">=60", ">=60", "*"]


def test_intervals_non_numeric_value():
    with pytest.raises(
        HierarchyError, match=r"attribute 'age': value 'abc' is not a finite number"
    ):
        interval_hierarchy("age", ["1", "abc"], widths=[5])
    with pytest.raises(HierarchyError, match=r"value 'nan'"):
        interval_hierarchy("age", ["1", "nan"], widths=[5])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, r"the intervals builder needs exactly one of `widths`.*got neither"),
        ({"widths": [5], "cuts": [[10]]}, r"the intervals builder needs exactly one.*got both"),
        ({"widths": []}, r"`widths` must be a non-empty list"),
        ({"widths": [0]}, r"widths\[0\] = 0 is not positive"),
        ({"widths": [-5]}, r"widths\[0\] = -5 is not positive"),
        ({"widths": [10, 15]}, r"widths\[1\] = 15 is not a whole multiple of widths\[0\] = 10"),
        ({"widths": [10, 5]}, r"widths\[1\] = 5 is not a whole multiple"),
        ({"widths": ["ten"]}, r"widths\[0\] = 'ten' is not a finite number"),
        ({"widths": [True]}, r"widths\[0\] = True is not a number"),
        ({"widths": [5], "bottom": 30, "top": 20}, r"bottom 30 is not below top 20"),
        ({"cuts": [[10], [20]]}, r"cuts\[1\] has cut point 20 that cuts\[0\] lacks"),
        ({"cuts": [[10], []]}, r"cuts\[1\] is empty"),
        ({"cuts": [10, 20]}, r"cuts\[0\] = 10 is not a list of cut points"),
        ({"cuts": [[10]], "start": 0}, r"`start` only applies with `widths`"),
    ],
)
def test_intervals_bad_parameters(kwargs, message):
    with pytest.raises(ConfigError, match=r"attribute 'age': " + message):
        interval_hierarchy("age", ["1", "2"], **kwargs)


_INT_LABEL = re.compile(r"^(-?\d+)-(-?\d+)$")


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.integers(-1000, 1000), min_size=1, max_size=40),
    base=st.integers(1, 12),
    ratios=st.lists(st.integers(1, 4), min_size=0, max_size=3),
    start=st.none() | st.integers(-50, 50),
)
def test_intervals_property(values, base, ratios, start):
    widths = [base]
    for r in ratios:
        widths.append(widths[-1] * r)
    h = interval_hierarchy("v", [str(v) for v in values], widths=widths, start=start)
    check_tree(h)
    anchor = start if start is not None else (min(values) // widths[-1]) * widths[-1]
    # a width whose intervals put every value in one group gives no level (it would equal the root)
    kept = [w for w in widths if len({(v - anchor) // w for v in values}) > 1]
    assert h.n_levels == len(kept) + 2
    assert sorted(int(v) for v in h.leaves) == sorted(set(values))
    for leaf in h.leaves:
        x = int(leaf)
        labels = ancestors(h, leaf)
        previous = (x, x)
        for j, w in enumerate(kept, start=1):
            m = _INT_LABEL.match(labels[j])
            assert m, labels[j]
            lo, hi = int(m.group(1)), int(m.group(2))
            assert lo <= x <= hi  # the value lies in its interval
            assert hi - lo + 1 == w  # of the level's width
            assert (lo - anchor) % w == 0  # aligned at the start
            assert lo <= previous[0] and previous[1] <= hi  # each level coarsens the one below
            previous = (lo, hi)
        assert labels[-1] == "*"


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(0, 200), min_size=1, max_size=30),
    bottom=st.integers(0, 100),
    span=st.integers(1, 100),
)
def test_intervals_bottom_top_property(values, bottom, span):
    top = bottom + span
    h = interval_hierarchy("v", [str(v) for v in values], widths=[7, 14], bottom=bottom, top=top)
    check_tree(h)
    for leaf in h.leaves:
        x = int(leaf)
        for label in ancestors(h, leaf)[1:-1]:
            if x < bottom:
                assert label == f"<{bottom}"
            elif x >= top:
                assert label == f">={top}"
            else:
                lo, hi = map(int, _INT_LABEL.match(label).groups())
                assert bottom <= lo <= x <= hi < top


# ============================================================================ masking builder
def test_masking_hand_checked():
    h = masking_hierarchy("zip", ["47911", "47912", "48000"])
    # "4****" and "*****" each hold all three codes: levels equal to the root are dropped
    assert h.n_levels == 5
    assert ancestors(h, "47911") == ["47911", "4791*", "479**", "47***", "*"]
    assert ancestors(h, "48000") == ["48000", "4800*", "480**", "48***", "*"]
    assert [h.size(j) for j in range(5)] == [3, 2, 2, 2, 1]
    assert h.leaves == ["47911", "47912", "48000"]  # given order
    check_tree(h)


def test_masking_levels_and_char():
    h = masking_hierarchy("zip", ["47911", "48000"], levels=2, mask_char="X", root="ANY")
    assert ancestors(h, "47911") == ["47911", "4791X", "479XX", "ANY"]
    assert h.source == "masking(mask_char='X', levels=2)"


def test_masking_shorter_values():
    h = masking_hierarchy("code", ["123", "12", "1"])
    assert ancestors(h, "123") == ["123", "12*", "1**", "***", "*"]
    assert ancestors(h, "12") == ["12", "1*", "**", "**", "*"]
    assert ancestors(h, "1") == ["1", "*", "*", "*", "*"]
    check_tree(h)


def test_masking_values_containing_the_mask_char():
    # "1*" and "12" share level 1 ("1*"); level 2 ("**" for all) equals the root and is dropped
    h = masking_hierarchy("code", ["1*", "12", "2*"])
    assert ancestors(h, "1*") == ["1*", "1*", "*"]
    assert ancestors(h, "12") == ["12", "1*", "*"]
    check_tree(h)


def test_masking_bad_parameters():
    with pytest.raises(
        ConfigError, match=r"attribute 'zip': mask_char '\*\*' must be a single character"
    ):
        masking_hierarchy("zip", ["1"], mask_char="**")
    with pytest.raises(
        ConfigError, match=r"attribute 'zip': masking levels = 6 must be a whole number from 0 to 5"
    ):
        masking_hierarchy("zip", ["47911"], levels=6)
    with pytest.raises(ConfigError, match=r"masking levels = 'two'"):
        masking_hierarchy("zip", ["47911"], levels="two")  # type: ignore[arg-type]


# ============================================================================ ordered builder
def test_ordered_grouping_hand_checked():
    h = ordered_grouping_hierarchy("edu", ["a", "b", "c", "d", "e"], fanouts=[2, 2])
    assert list(h.labels[1]) == ["a..b", "c..d", "e"]
    assert list(h.labels[2]) == ["a..d", "e"]
    assert ancestors(h, "c") == ["c", "c..d", "a..d", "*"]
    assert ancestors(h, "e") == ["e", "e", "e", "*"]
    assert h.source == "ordered(fanouts=[2, 2])"
    check_tree(h)


def test_ordered_grouping_keeps_given_order():
    h = ordered_grouping_hierarchy("lvl", ["low", "mid", "high", "mid", "top"], fanouts=[3])
    assert h.leaves == ["low", "mid", "high", "top"]
    assert ancestors(h, "high") == ["high", "low..high", "*"]
    assert ancestors(h, "top") == ["top", "top", "*"]


def test_ordered_grouping_ambiguous_labels():
    with pytest.raises(HierarchyError, match=r"both labelled 'a..b..c'"):
        ordered_grouping_hierarchy("x", ["a", "b..c", "a..b", "c"], fanouts=[2])


def test_ordered_grouping_bad_fanouts():
    with pytest.raises(
        ConfigError, match=r"attribute 'x': fanouts\[1\] = 0 is not a positive whole number"
    ):
        ordered_grouping_hierarchy("x", ["a", "b"], fanouts=[2, 0])
    with pytest.raises(ConfigError, match=r"`fanouts` must be a non-empty list"):
        ordered_grouping_hierarchy("x", ["a", "b"], fanouts=[])


# ============================================================================ date builder
def test_dates_hand_checked():
    values = ["2021-03-30", "1999-12-31", "2021-03-04", "2020-01-01"]
    h = date_hierarchy("dob", values)
    assert h.leaves == ["1999-12-31", "2020-01-01", "2021-03-04", "2021-03-30"]  # by date
    assert ancestors(h, "2021-03-04") == ["2021-03-04", "2021-03", "2021", "2020s", "*"]
    assert ancestors(h, "1999-12-31") == ["1999-12-31", "1999-12", "1999", "1990s", "*"]
    assert [h.size(j) for j in range(5)] == [4, 3, 3, 2, 1]
    check_tree(h)


def test_dates_levels_and_format():
    h = date_hierarchy(
        "d", ["04/03/2021", "31/12/1899"], levels=["year", "century"], format="%d/%m/%Y"
    )
    assert ancestors(h, "04/03/2021") == ["04/03/2021", "2021", "2000-2099", "*"]
    assert ancestors(h, "31/12/1899") == ["31/12/1899", "1899", "1800-1899", "*"]


def test_dates_unparseable():
    with pytest.raises(
        HierarchyError, match=r"attribute 'dob': value 'soon' is not a date.*`format:`"
    ):
        date_hierarchy("dob", ["2021-01-01", "soon"])
    with pytest.raises(HierarchyError, match=r"value '2021-01-01' .*format '%d/%m/%Y'"):
        date_hierarchy("dob", ["2021-01-01"], format="%d/%m/%Y")


def test_dates_bad_levels():
    with pytest.raises(ConfigError, match=r"attribute 'd': unknown date level 'week'"):
        date_hierarchy("d", ["2021-01-01"], levels=["week", "year"])
    with pytest.raises(ConfigError, match=r"must go from fine to coarse"):
        date_hierarchy("d", ["2021-01-01"], levels=["year", "month"])
    with pytest.raises(ConfigError, match=r"must go from fine to coarse"):
        date_hierarchy("d", ["2021-01-01"], levels=["year", "year"])


# ============================================================================ flat builder
def test_flat_builder():
    h = flat_hierarchy("sex", ["M", "F", "M"], root="ANY")
    assert h.rows() == [["M", "ANY"], ["F", "ANY"]]
    check_tree(h)


def test_builders_reject_empty_values():
    for build in (flat_hierarchy, masking_hierarchy):
        with pytest.raises(HierarchyError, match=r"attribute 'x': no values"):
            build("x", [])
    with pytest.raises(HierarchyError, match=r"attribute 'x': no values"):
        interval_hierarchy("x", [], widths=[5])


# ============================================================================ build_hierarchy
def test_build_dispatch():
    h = build_hierarchy("age", {"builder": "intervals", "widths": [5, 10]}, ["3", "7", "12"])
    assert ancestors(h, "7") == ["7", "5-9", "0-9", "*"]
    h = build_hierarchy("zip", {"builder": "masking", "levels": 1}, ["123", "124", "135"])
    assert ancestors(h, "124") == ["124", "12*", "*"]
    h = build_hierarchy("d", {"builder": "dates", "levels": ["year"]}, ["2021-05-01", "2020-01-01"])
    assert ancestors(h, "2021-05-01") == ["2021-05-01", "2021", "*"]
    h = build_hierarchy("s", {"builder": "flat", "root": "ALL"}, ["x", "y"])
    assert h.rows() == [["x", "ALL"], ["y", "ALL"]]


def test_build_ordered_with_and_without_order():
    h = build_hierarchy("e", {"builder": "ordered", "fanouts": [2]}, ["c", "a", "b"])
    assert ancestors(h, "a") == ["a", "a..b", "*"]  # sorted, not in the order the values came
    spec = {"builder": "ordered", "fanouts": [2], "order": ["a", "b", "c", "d"]}
    h = build_hierarchy("e", spec, ["c", "a"])
    assert h.leaves == ["a", "b", "c", "d"]
    assert ancestors(h, "c") == ["c", "c..d", "*"]
    with pytest.raises(ConfigError, match=r"attribute 'e': value 'z' is not in `order`"):
        build_hierarchy("e", spec, ["a", "z"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"builder": "foo"},
            (
                r"attribute 'age': unknown hierarchy builder 'foo'; use one of intervals \| masking"
                r" \| ordered \| dates \| flat"
            ),
        ),
        ({"widths": [5]}, r"attribute 'age': hierarchy spec has no `builder`"),
        (
            {"builder": "intervals", "width": [5]},
            r"unknown key 'width' for the intervals hierarchy builder",
        ),
        ({"builder": "flat", "levels": 2}, r"unknown key 'levels' for the flat hierarchy builder"),
        ({"builder": "ordered"}, r"the ordered hierarchy builder needs `fanouts`"),
        ({"builder": "intervals"}, r"exactly one of `widths`"),
        ("intervals", r"must be a mapping"),
    ],
)
def test_build_bad_specs(spec, message):
    with pytest.raises(ConfigError, match=message):
        build_hierarchy("age", spec, ["1", "2"])


# ============================================================================ order-independence
def test_build_sorts_numbers_as_numbers_whatever_their_order():
    # cmc's husband_education in its order of appearance: 3, 4, 2, 1 (released as 3..4 and 2..1 before)
    h = build_hierarchy("husband_education", {"builder": "ordered", "fanouts": [2, 2]}, ["3", "4", "2", "1"])
    # the level 1..4 holds every value: it equals the root and is dropped
    assert h.rows() == [["1", "1..2", "*"], ["2", "1..2", "*"], ["3", "3..4", "*"], ["4", "3..4", "*"]]
    h = build_hierarchy("n", {"builder": "ordered", "fanouts": [2]}, ["10", "9", "100", "-1"])
    assert h.leaves == ["-1", "9", "10", "100"]  # numbers by value, not as text ("10" < "9")
    assert ancestors(h, "10") == ["10", "10..100", "*"]


def test_natural_sorted():
    assert natural_sorted(["A10", "a9", "B1", "a9"]) == ["a9", "A10", "B1"]
    assert natural_sorted(["10.0", "10", "9.5"]) == ["9.5", "10", "10.0"]  # equal numbers: by text
    assert natural_sorted(["x", "1"]) == ["1", "x"]


def test_ordered_builder_honours_the_attributes_order():
    spec = {"builder": "ordered", "fanouts": [3]}
    words = ["Zero", "One", "Two", "Three", "Four", "Five"]
    h = build_hierarchy("children", spec, ["Two", "Zero", "Five", "One", "Four", "Three"], order=words)
    assert h.leaves == words
    assert ancestors(h, "Five") == ["Five", "Three..Five", "*"]  # not a group Zero..Four that also holds Five
    same = build_hierarchy("children", {**spec, "order": words}, ["Five", "Zero"], order=words)
    assert same.rows() == h.rows()
    with pytest.raises(ConfigError, match=r"attribute 'children': the attribute's `order` and the ordered"
                                          r" builder's `order` differ"):
        build_hierarchy("children", {**spec, "order": words[::-1]}, ["Zero"], order=words)


BUILDER_SPECS = [
    {"builder": "ordered", "fanouts": [2, 3]},
    {"builder": "intervals", "widths": [5, 10]},
    {"builder": "masking"},
    {"builder": "flat"},
]


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 60), min_size=1, max_size=25, unique=True),
       spec=st.sampled_from(BUILDER_SPECS), seed=st.integers(0, 1000), padded=st.booleans())
def test_build_depends_on_the_set_of_values_only(values, spec, seed, padded):
    texts = [f"{v:03d}" if padded else str(v) for v in values]
    shuffled = list(np.random.default_rng(seed).permutation(texts))
    h = build_hierarchy("v", spec, texts)
    assert build_hierarchy("v", spec, shuffled + shuffled[:3]).rows() == h.rows()
    check_tree(h)
    assert h.leaves == sorted(texts, key=int)
    for j in range(1, h.max_level):
        assert h.size(j) > 1  # no level below the root holds every value
    if spec["builder"] == "ordered":  # a group "a..b" holds exactly the values from a to b
        for j in range(1, h.max_level):
            for label in h.labels[j]:
                members = [leaf for leaf in h.leaves if ancestors(h, leaf)[j] == label]
                lo, _, hi = str(label).partition("..")
                assert members == [t for t in h.leaves if int(lo) <= int(t) <= int(hi or lo)]


def test_intervals_and_dates_break_ties_by_text():
    a = interval_hierarchy("n", ["10.0", "10", "3"], widths=[5])
    b = interval_hierarchy("n", ["10", "3", "10.0"], widths=[5])
    assert a.rows() == b.rows() and a.leaves == ["3", "10", "10.0"]
    a = date_hierarchy("d", ["2021-01-01", "01/01/2021", "1999-01-01"], levels=["year"], format="mixed")
    b = date_hierarchy("d", ["01/01/2021", "1999-01-01", "2021-01-01"], levels=["year"], format="mixed")
    assert a.rows() == b.rows() and a.leaves == ["1999-01-01", "01/01/2021", "2021-01-01"]


# ============================================================================ file and structure checks
def test_read_hierarchy_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "edu.csv"
    path.write_bytes("1;low;*\n2;low;*\n3;high;*\n".encode("utf-8-sig"))
    h = read_hierarchy(path)
    assert h.leaves == ["1", "2", "3"]  # not "\ufeff1"
    assert ancestors(h, "1") == ["1", "low", "*"]


def test_read_hierarchy_that_is_a_directory(tmp_path):
    with pytest.raises(HierarchyError, match=r"hierarchy file .* for 'edu' is a directory"):
        read_hierarchy(tmp_path, name="edu")


@pytest.mark.parametrize(("rows", "cycle"), [
    ([["a", "b", "*"], ["b", "a", "*"]], "'a' -> 'b' -> 'a'"),
    ([["a", "b", "c", "*"], ["c", "d", "a", "*"]], "'a' -> 'b' -> 'c' -> 'd' -> 'a'"),
])
def test_from_rows_refuses_a_cycle(rows, cycle):
    with pytest.raises(HierarchyError, match=re.escape(f"the levels form a cycle, {cycle};")):
        Hierarchy.from_rows("x", rows, source="x.csv")


def test_from_rows_accepts_values_that_stay_themselves():
    h = Hierarchy.from_rows("w", [["Private", "Private", "*"], ["State", "Gov", "*"], ["Gov", "Gov", "*"]])
    check_tree(h)
