"""The optimal method's ``levels``: the node given is released as it is, judged like any other, or refused."""

from __future__ import annotations

import warnings

import pytest

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.errors import AnonsetWarning, ConfigError, InfeasibleError
from anonset.recheck.verify import verify_release

TABLE = patient_register(1500, seed=4)
ATTRIBUTES = patient_register_attributes(TABLE)
REQUIREMENTS = Requirements([KAnonymity(5)], 0.02)


def _fit(**options: object) -> Anonymizer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        return Anonymizer(ATTRIBUTES, REQUIREMENTS, method="optimal", method_options=options).fit(TABLE)


def test_the_node_given_is_released_and_re_checked() -> None:
    optimum = _fit()
    quasi = list(optimum.levels_)
    top = {q: h.max_level for q, h in zip(optimum.dataset_.quasi, optimum.dataset_.hierarchies, strict=True)}
    chosen = dict(optimum.levels_)
    raised = next(q for q in quasi if chosen[q] < top[q])
    chosen[raised] += 1
    given = _fit(levels=chosen)
    assert given.levels_ == chosen
    release = given.release_
    assert release.summary()["search"]["strategy"] == "the node given in method.levels (no search)"
    assert release.summary()["search"]["nodes_checked"] == 1
    # independently: the released table re-verified from its values
    assert verify_release(release.table, given.dataset_, REQUIREMENTS).ok
    # a node more general in one attribute loses at least as much as the optimum
    assert release.metrics["loss"] >= optimum.release_.metrics["loss"] - 1e-12


def test_the_report_says_the_node_was_given_not_found() -> None:
    """Its words never call a given node the optimum, nor say that finer feasible nodes score worse."""
    from anonset.report.contents import build_report

    optimum = _fit()
    chosen = dict(optimum.levels_)
    raised = next(q for q, h in zip(optimum.dataset_.quasi, optimum.dataset_.hierarchies, strict=True)
                  if chosen[q] < h.max_level)
    chosen[raised] += 1
    given = _fit(levels=chosen)
    report = build_report(given.dataset_, given.release_.table, REQUIREMENTS, given.release_.summary(),
                          partition=given.release_.partition)
    words = " ".join(report["why"])
    assert "given in the configuration (method.levels)" in words and "releasing the node given" in words
    assert "lowest" not in words and "score worse" not in words and "exact optimum" not in words
    # the optimum itself is finer in the raised attribute and feasible: named, with both losses to compare
    assert f"{raised} at level {optimum.levels_[raised]}" in words and "(this release: loss" in words


def test_a_node_that_does_not_meet_the_requirements_is_refused() -> None:
    quasi = list(_fit().levels_)
    with pytest.raises(InfeasibleError, match="the node given in method.levels .* does not satisfy 5-anonymity"):
        _fit(levels=dict.fromkeys(quasi, 0))


@pytest.mark.parametrize(("levels", "message"), [
    ({"age": 1}, "missing: sex"),
    ({"age": 1, "sex": 0, "zip": 0, "race": 0, "marital_status": 0, "education": 0, "weight": 1},
     "not quasi-identifiers: weight"),
    ({"age": 9, "sex": 0, "zip": 0, "race": 0, "marital_status": 0, "education": 0}, "age has level 9"),
])
def test_levels_that_are_no_node_name_what_is_wrong(levels: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _fit(levels=levels)


def test_levels_of_another_shape_are_refused_before_the_run() -> None:
    for bad in ([1, 2], {"age": -1}, {"age": "2"}, {"age": True}):
        with pytest.raises(ConfigError, match="a mapping of each quasi-identifier to its level"):
            Anonymizer(ATTRIBUTES, REQUIREMENTS, method="optimal", method_options={"levels": bad})
