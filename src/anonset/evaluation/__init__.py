"""Workload evaluation: does a model trained on the release still work? (LeFevre et al.'s protocol.)

:func:`evaluate` learns the recoding on training records only, applies it to
test records, and scores scikit-learn models trained on the recoded training
records against the same models trained on the original ones.
"""

from anonset.evaluation.features import (
           feature_names,
           level_features,
           original_features,
           partition_features,
)
from anonset.evaluation.models import CLASSIFIERS, REGRESSORS, make_model
from anonset.evaluation.protocol import EvaluationResult, evaluate, split_rows

__all__ = ["CLASSIFIERS", "REGRESSORS", "EvaluationResult", "evaluate", "feature_names", "level_features",
           "make_model", "original_features", "partition_features", "split_rows"]
