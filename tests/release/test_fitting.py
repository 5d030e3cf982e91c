"""Fitting a method of each family and releasing its result (:mod:`anonset.release.fitting`), called directly.

``fit_method`` is what ``Anonymizer.fit`` runs once it has checked its
inputs: each family through it gives the release the Anonymizer gives (the
same released bytes, the same summary but for the timings), and what a
method returning another family's result gets is the Anonymizer's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import Dataset
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.errors import ConfigError
from anonset.methods import registry
from anonset.methods.base import Family, Method, Problem
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.release.build import ReleaseSettings
from anonset.release.fitting import fit_method, optimized_metric
from anonset.release.stages import StageClock


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    table = patient_register(400, seed=5)
    return Dataset(table, patient_register_attributes(table), source="register.csv")


def _settings(method: str, requirements: Requirements) -> ReleaseSettings:
    """The settings an ``Anonymizer(method=method)`` with no other parameter gives its fit."""
    return ReleaseSettings(method=method, requirements=requirements,
                           metric=optimized_metric(method, None, None, requirements), named_metric=None,
                           weights=None, options={}, seed=0, drop_suppressed=False)


def _untimed(value: Any) -> Any:
    """A summary without its timings (``seconds``, ``stage_seconds``, ``search_seconds``, ``method_seconds``)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "seconds" and not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@pytest.mark.parametrize(("method", "family", "requirements"), [
    ("optimal", Family.NODE, Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], 0.02)),
    ("mondrian", Family.GROUPING, Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)])),
    ("pareto-exhaustive", Family.FRONT, Requirements([KAnonymity(5)], 0.02)),
])
def test_each_family_releases_what_the_anonymizer_releases(dataset: Dataset, method: str, family: Family,
                                                            requirements: Requirements) -> None:
    assert registry.get(method).family is family
    fitted = fit_method(_settings(method, requirements), dataset, None, StageClock())
    model = Anonymizer({}, requirements, method=method).fit(dataset)
    assert fitted.release.table is not None and model.release_.table is not None
    assert fitted.release.table.to_csv() == model.release_.table.to_csv()
    assert _untimed(fitted.release.summary()) == _untimed(model.release_.summary())
    assert fitted.levels == model.levels_ and fitted.dataset is dataset and fitted.sink is None
    # what the family learns, and only that
    assert (fitted.result is not None) is (family is Family.NODE)
    assert (fitted.grouping is not None) is (family is Family.GROUPING)
    assert (fitted.front is not None) is (family is Family.FRONT)
    if family is Family.FRONT:
        assert fitted.front is not None and fitted.front.front == model.front_.front
        # a front member claims its own privacy (k of the member, under the budget), as the Anonymizer keeps it
        assert fitted.release_requirements.describe() == model.release_requirements_.describe()
    else:
        assert fitted.release_requirements is requirements


@pytest.fixture
def returns_a_grouping() -> Iterator[str]:
    """A full-domain method (by its declaration) whose ``fit`` returns Mondrian's grouping (a MondrianTree)."""

    def fit(problem: Problem) -> object:
        return registry.get("mondrian").fit(problem)

    name = "node-that-groups"
    registry.register(Method(name=name, family=Family.NODE, summary="returns a Grouping", fit=fit))
    yield name
    registry.unregister(name)


def test_a_method_returning_another_familys_result_is_refused_as_the_anonymizer_refuses_it(
        dataset: Dataset, returns_a_grouping: str) -> None:
    requirements = Requirements([KAnonymity(5)])
    with pytest.raises(TypeError) as direct:
        fit_method(_settings(returns_a_grouping, requirements), dataset, None, StageClock())
    with pytest.raises(TypeError) as through_fit:
        Anonymizer({}, requirements, method=returns_a_grouping).fit(dataset)
    assert str(direct.value) == str(through_fit.value) == (
        "method 'node-that-groups' (full-domain) returned MondrianTree, not a SearchResult as its family promises"
        " (this is a bug in the method's module)")


def test_records_in_memory_have_no_output_table(dataset: Dataset) -> None:
    settings = _settings("optimal", Requirements([KAnonymity(5)]))
    with pytest.raises(ConfigError, match="^output_table is where a table that lives in a database is released"):
        fit_method(settings, dataset, None, StageClock(), output_table="public.release")

