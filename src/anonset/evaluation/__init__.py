"""Workload evaluation: does a model trained on the release still work? (LeFevre et al.'s protocol.)

:func:`evaluate` learns the recoding on training records only, applies it to
test records, and scores scikit-learn models trained on the recoded training
records against the same models trained on the original ones.  Checks any release can be put through:
:func:`query_accuracy` (random range-count queries answered on the release) and :func:`pattern_survival`
(a tree grown on the release against one grown on the raw data), :func:`attribute_loss` and
:func:`value_distributions` (what the release did to each quasi-identifier, as data).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anonset.evaluation.distributions import attribute_loss, value_distributions
    from anonset.evaluation.features import (
        feature_names,
        level_features,
        original_features,
        partition_features,
    )
    from anonset.evaluation.models import CLASSIFIERS, REGRESSORS, make_model
    from anonset.evaluation.patterns import PatternSurvival, pattern_survival
    from anonset.evaluation.protocol import EvaluationResult, evaluate, split_rows
    from anonset.evaluation.queries import QueryAccuracy, RangeQuery, query_accuracy, random_workload

__all__ = ["CLASSIFIERS", "REGRESSORS", "EvaluationResult", "PatternSurvival", "QueryAccuracy", "RangeQuery",
           "attribute_loss", "evaluate", "feature_names", "level_features", "make_model", "original_features",
           "partition_features", "pattern_survival", "query_accuracy", "random_workload", "split_rows",
           "value_distributions"]

# each name is imported from its module on first use: query accuracy (``anonset report``, ``anonset compare``)
# does not need scikit-learn, whose import takes about half a second
_MODULES = {"attribute_loss": "distributions", "value_distributions": "distributions",
            "feature_names": "features", "level_features": "features", "original_features": "features",
            "partition_features": "features", "CLASSIFIERS": "models", "REGRESSORS": "models",
            "make_model": "models", "PatternSurvival": "patterns", "pattern_survival": "patterns",
            "EvaluationResult": "protocol", "evaluate": "protocol", "split_rows": "protocol",
            "QueryAccuracy": "queries", "RangeQuery": "queries", "query_accuracy": "queries",
            "random_workload": "queries"}


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module (PEP 562)."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'anonset.evaluation' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"anonset.evaluation.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
