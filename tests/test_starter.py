"""anonset.starter on hand-made columns: detected types, distinct counts, proposed roles and hierarchies."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import yaml

from anonset.core.hierarchy_builders import build_hierarchy
from anonset.starter import (
    ColumnProfile,
    Proposal,
    fit_lattice,
    interval_spec,
    lattice_size,
    profile_column,
    profile_table,
    propose,
)


def column(values: list[str | None]) -> pa.ChunkedArray:
    return pa.chunked_array([pa.array(values, type=pa.string())])


def profile(name: str, values: list[str | None]) -> ColumnProfile:
    return profile_column(name, column(values))


def proposal(name: str, values: list[str | None]) -> Proposal:
    return propose([profile(name, values)])[0]


@pytest.mark.parametrize(("values", "kind"), [
    (["17", "35", " 90", "35", "42.5"], "numeric"),
    (["2021-03-04", "1999-12-31", "2000-02-29"], "date"),
    (["2021-02-30", "2021-03-04"], "categorical"),                  # no 30 February: not a date
    (["04.03.2021", "31.12.1999"], "date"),
    (["2021-03-04 10:00:00", "2021-03-05T11:30"], "date"),
    (["02139", "47911", "10001"], "code"),                          # digits with a leading zero: a code
    (["E119", "I10X", "J459", "E110"], "code"),                     # letters and digits, one length
    (["USA", "GBR", "FRA"], "categorical"),                         # one length, but no digit
    (["12", "7", "003"], "numeric"),                                # lengths differ: a number
    (["red", "green"], "categorical"),
    (["x", "x", ""], "constant"),
    (["", None, ""], "empty"),
])
def test_detected_kind(values: list[str | None], kind: str) -> None:
    assert profile("c", values).kind == kind


def test_distinct_counts_are_exact_and_missing_markers_are_counted() -> None:
    p = profile("c", ["a", "b", "a", "", None, "c"])
    assert (p.rows, p.distinct, p.missing, p.example) == (6, 3, 2, "a")
    numbers = profile("age", ["30", "?", "41", "NA", "30", ""])
    assert numbers.kind == "numeric" and numbers.markers == ("NA", "?") and numbers.missing == 3


def test_zip_codes_of_digits_are_codes_by_name() -> None:
    assert profile("zip", ["47911", "47920", "53001"]).kind == "code"
    assert profile("amount", ["47911", "47920", "53001"]).kind == "numeric"


def test_day_first_and_month_first_dates_are_flagged_as_ambiguous() -> None:
    p = profile("d", ["04/03/2021", "01/02/2020"])
    assert p.kind == "date" and p.date_format == "%d/%m/%Y" and p.date_ambiguous
    q = profile("d", ["04/13/2021", "01/02/2020"])                 # month 13 cannot be: month-first
    assert q.date_format == "%m/%d/%Y" and not q.date_ambiguous


def test_roles() -> None:
    many = [f"Person {i} text" for i in range(100)]
    assert proposal("notes", many).role == "identifier"               # nearly unique text
    assert proposal("notes", many).warning is not None
    assert proposal("PatientID", [str(i % 7) for i in range(100)]).role == "identifier"   # by its name
    assert proposal("valid", ["yes", "no"] * 50).role == "quasi"      # "valid" holds no "id" word
    unique_numbers = proposal("weight", [str(50 + i / 10) for i in range(100)])
    assert unique_numbers.role == "quasi" and unique_numbers.warning is not None   # numbers: generalized
    assert proposal("primary_diagnosis", ["flu", "cold"] * 10).role == "sensitive"
    income = proposal("Income", [str(1000 * i) for i in range(1, 31)])
    assert (income.role, income.type) == ("sensitive", "numeric")
    assert proposal("country", ["x"] * 40).role == "insensitive"


def test_hierarchies_proposed_for_each_kind() -> None:
    age = proposal("age", [str(a) for a in range(17, 91)])
    assert age.hierarchy == {"builder": "intervals", "widths": [5, 10, 20]} and age.type == "numeric"
    zips = [f"{a:02d}{b:03d}" for a in range(0, 60, 7) for b in range(0, 900, 37)] * 2
    masked = proposal("zip", zips)
    assert masked.hierarchy == {"builder": "masking", "levels": 3}         # 00***, 07***, ..., 56***: 9 groups
    day = proposal("visit", ["2020-01-01", "2021-06-30"])
    assert day.hierarchy == {"builder": "dates", "levels": ["month", "year", "decade"], "format": "%Y-%m-%d"}
    assert proposal("sex", ["F", "M", "F"]).hierarchy == {"builder": "flat"}


def test_interval_widths_are_round_multiples_from_a_few_dozen_bands_to_a_handful() -> None:
    spec, bands, coded = interval_spec((0.0, 1.0, 199_000.0, 200_000.0), True)
    assert spec == {"builder": "intervals", "widths": [10_000, 20_000, 100_000]} and coded is None
    assert bands[0] >= 10 and bands[-1] <= 5
    small, _, _ = interval_spec((0.0, 0.0, 0.83, 0.83), False)
    assert small["widths"] == [0.05, 0.1, 0.2]
    widths = [Fraction(str(w)) for w in small["widths"]]
    assert all((b / a).denominator == 1 for a, b in zip(widths, widths[1:], strict=False))
    skewed, _, coded = interval_spec((3.0, 40.0, 160.0, 60_000.0), True)
    assert skewed["bottom"] == 40 and skewed["top"] == 160 and coded is not None


def test_proposed_hierarchies_build_on_the_data() -> None:
    rng = np.random.default_rng(0)
    values = {
        "age": [str(v) for v in rng.integers(0, 100, 500)],
        "weight": [f"{v:.1f}" for v in rng.normal(70, 15, 500)],
        "zip": [f"{v:05d}" for v in rng.integers(0, 300, 500) * 100 + 7],
        "born": [str(np.datetime64("1950-01-01") + int(d)) for d in rng.integers(0, 2_000, 500)],
    }
    table = pa.table({name: pa.array(v) for name, v in values.items()})
    for p in propose(profile_table(table)):
        assert p.hierarchy is not None
        h = build_hierarchy(p.profile.name, p.hierarchy, sorted(set(values[p.profile.name])))
        assert h.n_levels >= 3


def test_fit_lattice_takes_levels_out_until_the_search_is_small() -> None:
    ages = [str(a) for a in range(17, 91)]
    many = [Proposal(profile(f"a{i}", ages), "quasi", hierarchy={"builder": "intervals", "widths": [5, 10, 20]},
                     groups=(16, 9, 5)) for i in range(8)]
    assert lattice_size(many) == 5 ** 8
    fitted, fits = fit_lattice(many, budget=10_000)
    assert fits and lattice_size(fitted) <= 10_000
    assert all(p.hierarchy is not None and p.hierarchy["widths"][-1] == 20 for p in fitted)  # coarse bands kept
    _, fits = fit_lattice(many, budget=100)
    assert not fits


def test_any_column_name_survives_the_yaml() -> None:
    from anonset.starter import render_config

    names = ["a: b", "#x", "yes", "null", "1", "é ü", "tab\tname", "line\u2028break", "- dash", "[x]", "a'b", 'a"b',
             " lead", "x\x7fy", "ok_name", "new\nline"]
    table = pa.table({name: pa.array([str(i % 3) for i in range(30)]) for name in names})
    proposals = propose(profile_table(table))
    text = render_config(proposals, 30, "data dir/t.csv", "\t", "t")
    raw = yaml.safe_load(text)
    assert list(raw["attributes"]) == names
    assert raw["input"] == {"path": "data dir/t.csv", "delimiter": "\t"}


def test_a_date_or_an_age_named_after_a_diagnosis_stays_quasi() -> None:
    assert proposal("diagnosis_date", ["2020-01-01", "2021-06-30"] * 20).role == "quasi"
    at = proposal("age_at_diagnosis", [str(a) for a in range(30, 70)] * 2)
    assert at.role == "quasi" and "mentions diagnosis" in " ".join(at.notes)


def test_values_held_by_fewer_than_k_records_are_counted() -> None:
    p = profile("c", ["a"] * 6 + ["b"] * 4 + ["c", "d", "d", "", None])
    assert p.held_by == (1, 1, 0, 1)                 # c by 1 record, d by 2, b by 4 (a by 6: not rare)
    assert (p.rare_values(5), p.rare_values(3), p.rare_values(1)) == (3, 2, 0)
    numbers = profile_column("n", pa.chunked_array([pa.array([1.0, 1.0, 2.0, float("nan"), None])]))
    assert numbers.held_by == (1, 1, 0, 0)


@pytest.mark.parametrize(("held", "rows", "role"), [
    (1, 200, "identifier"),     # "John Smith, VIP, HIV+" once, every other record empty
    (4, 200, "identifier"),
    (5, 200, "insensitive"),    # shared by k = 5 records: cannot single anyone out
    (3, 3, "insensitive"),      # a 3-record table: k is 3, and all 3 hold it
    (2, 3, "identifier"),
])
def test_a_one_value_column_is_dropped_when_its_value_is_rare(held: int, rows: int, role: str) -> None:
    p = proposal("remark", ["John Smith, VIP, HIV+"] * held + [""] * (rows - held))
    assert p.profile.kind == "constant" and p.role == role
    if role == "identifier":
        assert p.warning is not None and "held by fewer than" in p.warning and "single a person out" in p.warning
        assert any("make it quasi (generalized) or insensitive" in note for note in p.notes)


def test_typed_columns_anonset_cannot_read_are_other_and_dropped() -> None:
    rows = 30
    table = pa.table({
        "tags": pa.array([["x", str(i % 2)] for i in range(rows)]),
        "info": pa.array([{"a": i % 3} for i in range(rows)]),
        "blob": pa.array([bytes([i % 4, 0xFF]) for i in range(rows)], pa.binary()),
        "big": pa.array([b"x" * (i % 2) for i in range(rows)], pa.large_binary()),
        "stay": pa.array([86_400 * (i % 3) for i in range(rows)], pa.duration("s")),
        "clock": pa.array([1000 * (i % 2) for i in range(rows)], pa.time32("ms")),
    })
    profiles = {p.name: p for p in profile_table(table)}
    for name in ("tags", "info", "blob", "big"):
        assert profiles[name].kind == "other" and profiles[name].arrow_type == str(table.schema.field(name).type)
    assert profiles["stay"].kind == "categorical" and profiles["clock"].kind == "categorical"  # never numbers
    roles = {p.profile.name: p.role for p in propose(list(profiles.values()))}
    assert [roles[n] for n in ("tags", "info", "blob", "big")] == ["identifier"] * 4


def test_a_lattice_too_large_for_one_level_each_is_said_at_once() -> None:
    """10,000 quasi-identifiers took 20,000 passes over the columns before mondrian was chosen."""
    ages = [str(a) for a in range(17, 91)]
    many = [Proposal(profile(f"a{i}", ages), "quasi", hierarchy={"builder": "intervals", "widths": [5, 10, 20]},
                     groups=(16, 9, 5)) for i in range(12)]   # 3^12 > 100,000 even with one level each
    fitted, fits = fit_lattice(many)
    assert not fits and fitted == many
