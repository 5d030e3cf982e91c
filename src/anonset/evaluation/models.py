"""The learners of the evaluation protocol: scikit-learn models standing in for the paper's Weka ones.

Classification (accuracy): ``decision_tree`` (J48 → a CART tree with
entropy splits and at least 2 records per leaf, as J48's default),
``naive_bayes`` (Gaussian naive Bayes on the 2·d numbers), ``random_forest``
(40 trees, as the paper) and ``linear_svm`` (a linear SVM on standardized
features).  Regression (mean absolute error): ``linear_regression`` and
``regression_tree`` (M5 → a CART regression tree with at least 4 records per
leaf, M5's default).  Every model is seeded with the evaluation's seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    "decision_tree": lambda seed: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=seed),
    "naive_bayes": lambda seed: GaussianNB(),
    "random_forest": lambda seed: RandomForestClassifier(n_estimators=40, random_state=seed, n_jobs=1),
    "linear_svm": lambda seed: make_pipeline(StandardScaler(), LinearSVC(random_state=seed)),
}

#: Regression models by name: seed -> unfitted estimator.
REGRESSORS: dict[str, Callable[[int], Any]] = {
    "linear_regression": lambda seed: LinearRegression(),
    "regression_tree": lambda seed: DecisionTreeRegressor(min_samples_leaf=4, random_state=seed),
}


def make_model(name: str, task: str, seed: int) -> Any:
    """An unfitted model by name for ``task`` (``classification`` or ``regression``)."""
    registry = CLASSIFIERS if task == "classification" else REGRESSORS
    if name not in registry:
        raise ConfigError(f"unknown {task} model {name!r}; use one of {' | '.join(registry)}")
    return registry[name](seed)
