"""The Anonymizer follows scikit-learn's conventions, and says what it must where a notebook user looks.

Tried as a data scientist would (pandas in, pandas out): ``fit``/``transform``
returned a ``Release``, the index was reset, every column came back as
``object``, ``sklearn.base.clone`` raised, a pipeline's output was a
``Release``, and a lost attribute was only a string in ``release_.warnings``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from anonset import (
    AnonsetWarning,
    Anonymizer,
    ConfigError,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    Release,
    Requirements,
)

ATTRIBUTES = {
    "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
    "sex": {"role": "quasi"},
    "ward": {"role": "quasi"},
    "diagnosis": {"role": "sensitive"},
    "stay": {"role": "insensitive"},
    "readmitted": {"role": "insensitive"},
    "cost": {"role": "insensitive"},
}


def admissions(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    """Admissions indexed by a record label, with typed columns (ints, floats, booleans, a categorical)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(20, 90, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "ward": rng.choice(["A", "B", "C"], n),
        "diagnosis": pd.Categorical(rng.choice(["flu", "cold", "asthma"], n)),
        "stay": rng.integers(1, 30, n),
        "readmitted": rng.random(n) < 0.2,
        "cost": rng.uniform(100, 5000, n).round(2),
    }, index=pd.Index([f"adm-{i:05d}" for i in rng.permutation(n)], name="admission"))
    return frame


def requirements() -> Requirements:
    return Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], max_suppression=0.02)


def quiet(model: Anonymizer, data: pd.DataFrame) -> Anonymizer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        return model.fit(data)


def test_clone_get_params_and_set_params() -> None:
    model = Anonymizer(ATTRIBUTES, requirements(), method="optimal", weights={"age": 2.0},
                       method_options={"assume_practical_monotonicity": False})
    twin = clone(model)
    same = {k: v for k, v in model.get_params().items() if k != "requirements"}
    assert twin is not model and {k: v for k, v in twin.get_params().items() if k != "requirements"} == same
    assert twin.requirements.describe() == model.requirements.describe()  # cloned, not shared
    assert set(model.get_params()) == {"attributes", "requirements", "method", "metric", "weights", "drop_suppressed",
                                       "on_violation", "seed", "method_options", "pick", "output_table",
                                       "replace_output", "allow_unprotected", "perturbation"}
    assert twin.set_params(seed=3) is twin and twin.seed == 3 and model.seed == 0
    with pytest.raises(ConfigError, match="on_violation must be"):
        twin.set_params(on_violation="ignore")
    assert twin.on_violation == "raise"  # a refused value leaves the parameters as they were
    with pytest.raises(ConfigError, match="has no parameter 'k'"):
        twin.set_params(k=5)


def test_fit_returns_self_and_transform_returns_a_frame_indexed_like_its_input() -> None:
    table = admissions()
    model = Anonymizer(ATTRIBUTES, requirements())
    assert quiet(model, table) is model
    new = admissions(800, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        out = model.transform(new)
    assert isinstance(out, pd.DataFrame)
    assert out.index.equals(new.index) and out.index.name == "admission"
    # untouched columns keep their dtypes and values; quasi-identifiers are the released labels
    for column in ("stay", "readmitted", "cost", "diagnosis"):
        assert out[column].dtype == new[column].dtype, column
        assert out[column].equals(new[column]), column
    assert list(out.columns) == list(new.columns)
    release = model.transform(new, return_release=True)
    assert isinstance(release, Release) and release.verified
    assert (out["age"].to_numpy() == release.table["age"].to_numpy()).all()
    # the labels are generalizations of each record's own age, row by row through the index
    bands = out["age"][out["age"] != "*"].str.split("-", expand=True).astype(int)
    ages = new.loc[bands.index, "age"].astype(int)
    assert ((bands[0] <= ages) & (ages <= bands[1])).all()


def test_fit_transform_is_the_fitted_release_as_a_frame() -> None:
    table = admissions()
    model = Anonymizer(ATTRIBUTES, requirements())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        out = model.fit_transform(table)
    assert out.index.equals(table.index)
    assert out["stay"].dtype == np.int64 and out["readmitted"].dtype == bool
    assert model.release_.table is not None
    assert (out["sex"].to_numpy() == model.release_.table["sex"].to_numpy()).all()
    assert isinstance(model.fit_transform(table, return_release=True), Release)


def test_dropped_suppressed_records_leave_their_index_labels_out() -> None:
    table = admissions()
    table.loc[table.index[:3], ["age", "ward"]] = ["99", "D"]  # three records nobody else looks like
    model = quiet(Anonymizer(ATTRIBUTES, requirements(), drop_suppressed=True), table)
    release = model.release_
    assert release.suppressed_rows > 0
    out = model.transform(table)
    kept = table.index[release.partition.row_class >= 0]
    assert out.index.equals(kept) and len(out) == len(table) - release.suppressed_rows
    assert out["cost"].equals(table.loc[kept, "cost"])


def test_withheld_sensitive_values_are_not_given_back_their_dtype() -> None:
    """A suppressed group that would break the models has its diagnoses withheld: ``*``, not the category."""
    table = admissions(600)
    rare = table.index[:3]
    table.loc[rare, ["age", "ward"]] = ["99", "D"]  # three records nobody else looks like: suppressed, k = 5
    model = quiet(Anonymizer(ATTRIBUTES, requirements()), table)
    out = model.transform(table)
    assert model.release_.withheld
    assert (out.loc[rare, "diagnosis"] == "*").all()
    assert out["stay"].dtype == np.int64  # the insensitive columns keep theirs


def test_in_a_pipeline_the_anonymizer_hands_a_frame_to_the_next_step() -> None:
    table = admissions()
    labels = (table["stay"] > 10).to_numpy()
    features = table[["age", "sex", "ward", "diagnosis", "cost"]]
    attributes = {name: spec for name, spec in ATTRIBUTES.items() if name in features.columns}
    pipe = make_pipeline(
        Anonymizer(attributes, Requirements([KAnonymity(5), EntropyLDiversity("diagnosis", 2)], 0.02),
                   on_violation="warn"),
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["age", "sex", "ward"]), remainder="drop"),
        LogisticRegression(max_iter=200))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        pipe.fit(features, labels)
        predicted = pipe.predict(admissions(500, seed=2)[features.columns])
        released = pipe[:1].transform(features)
    assert predicted.shape == (500,)
    assert isinstance(released, pd.DataFrame) and released.index.equals(features.index)
    assert clone(pipe).get_params()["anonymizer__on_violation"] == "warn"


def test_a_lost_attribute_reaches_python_as_a_warning() -> None:
    """k = 60 leaves no room for the ward: released as * everywhere, and Python is told so."""
    table = admissions()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = Anonymizer(ATTRIBUTES, Requirements([KAnonymity(60)], 0.02), weights={"ward": 0.01}).fit(table)
    lost = [w for w in caught if issubclass(w.category, AnonsetWarning) and "is released at its top level" in
            str(w.message)]
    assert lost, [str(w.message) for w in caught]
    name = str(lost[0].message).split("'")[1]
    released = model.release_.table
    assert released is not None and set(released[name]) == {"*"}  # what the warning says, seen in the release
    assert str(lost[0].message) in model.release_.warnings
    assert "the cheapest feasible release that keeps it" in str(lost[0].message)
    assert "method.weights" in str(lost[0].message)


def test_a_release_shows_itself_in_a_notebook() -> None:
    table = admissions().rename(columns={"ward": "<b>ward</b>"})
    attributes = {("<b>ward</b>" if k == "ward" else k): v for k, v in ATTRIBUTES.items()}
    release = quiet(Anonymizer(attributes, requirements()), table).release_
    page = release._repr_html_()
    assert "In short." in page and "5-anonymity" in page and "distinct 2-diversity on diagnosis" in page
    assert "holds" in page and "<script" not in page
    assert "<b>ward</b>" not in page and ("&lt;b&gt;ward&lt;/b&gt;" in page or "ward" not in page)
    assert repr(release).startswith("Release(method='optimal', records=1,500")
