"""Workload evaluation: does a model trained on the release still work? (LeFevre et al.'s protocol.)

:func:`evaluate` learns the recoding on training records only, applies it to
test records, and scores scikit-learn models trained on the recoded training
records against the same models trained on the original ones.  Checks any release can be put through:
:func:`query_accuracy` (random range-count queries answered on the release) and :func:`pattern_survival`
(a tree grown on the release against one grown on the raw data), :func:`attribute_loss` and
:func:`value_distributions` (what the release did to each quasi-identifier, as data).
"""

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
