"""The learners of the evaluation protocol: scikit-learn models standing in for the paper's Weka ones.

Classification (accuracy): ``decision_tree`` (J48 → a CART tree with
entropy splits, at least 2 records per leaf as J48's default, and pruned —
cost-complexity pruning with α = 5·10⁻⁴ standing in for J48's confidence
pruning; unpruned, the tree overfits: 0.797 instead of 0.826 on Adult's
original records), ``naive_bayes`` (Gaussian naive Bayes on the 2·d numbers,
each variance floored at 1% of the largest, as Weka floors the standard
deviation: on anonymized records a feature can be constant within a class,
and a zero variance would let that one feature decide every prediction),
``random_forest`` (40 trees, as the paper) and ``linear_svm`` (a linear SVM
on standardized features).  Regression (mean absolute error): ``linear_regression`` and
``regression_tree`` (M5 → a CART regression tree with at least 4 records per
leaf, M5's default, pruned by cost-complexity with α = 5·10⁻⁴ on the
standardized target, so the pruning does not depend on the target's unit;
unpruned, it overfits: a mean absolute error of 8.04 hours instead of 7.10 on
Adult's hours-per-week).  Every model is seeded with the evaluation's seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from anonset.errors import ConfigError

__all__ = ["CLASSIFIERS", "REGRESSORS", "make_model"]

#: Classification models by name: seed -> unfitted estimator.
CLASSIFIERS: dict[str, Callable[[int], Any]] = {
    "decision_tree": lambda seed: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, ccp_alpha=5e-4,
                                                         random_state=seed),
    "naive_bayes": lambda seed: GaussianNB(var_smoothing=1e-2),
    "random_forest": lambda seed: RandomForestClassifier(n_estimators=40, random_state=seed, n_jobs=1),
    "linear_svm": lambda seed: make_pipeline(StandardScaler(), LinearSVC(random_state=seed)),
}

#: Regression models by name: seed -> unfitted estimator.
REGRESSORS: dict[str, Callable[[int], Any]] = {
    "linear_regression": lambda seed: LinearRegression(),
    "regression_tree": lambda seed: TransformedTargetRegressor(
        regressor=DecisionTreeRegressor(min_samples_leaf=4, ccp_alpha=5e-4, random_state=seed),
        transformer=StandardScaler()),
}


def make_model(name: str, task: str, seed: int) -> Any:
    """An unfitted model by name for ``task`` (``classification`` or ``regression``)."""
    registry = CLASSIFIERS if task == "classification" else REGRESSORS
    if name not in registry:
        raise ConfigError(f"unknown {task} model {name!r}; use one of {' | '.join(registry)}")
    return registry[name](seed)
