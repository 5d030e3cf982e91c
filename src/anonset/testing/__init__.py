"""Contract checks shipped with anonset: run them on a method, engine, sink or privacy model of your own.

Each kind of extension has a function that generates its checks from what
it declares, as ``(name, check)`` pairs (calling a check runs it), and one
that runs them all, in the spirit of scikit-learn's ``check_estimator``:

- :func:`method_checks` / :func:`check_method`: a :class:`~anonset.methods.base.Method`, or a registered name;
- :func:`engine_checks` / :func:`check_engine`: an :class:`EngineFactory` (how to build the engine);
- :func:`sink_checks` / :func:`check_sink`: a :class:`SinkFactory` (the sink, and how to see into its store);
- :func:`privacy_model_checks` / :func:`check_privacy_model`: a :class:`~anonset.privacy.PrivacyModel`.

A failed check raises :class:`CheckFailure` (an ``AssertionError``) naming
the subject, the check and what is wrong.  The checks build their own small
synthetic data (:mod:`anonset.datasets`).  With pytest,
:func:`parametrize_with_checks` makes one test per check::

    from anonset.testing import parametrize_with_checks

    @parametrize_with_checks(["my-method"])
    def test_my_method(check):
        check()

pytest is imported only by :func:`parametrize_with_checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from anonset.methods.base import Method
from anonset.privacy import PrivacyModel
from anonset.testing.checks import Check, CheckFailure
from anonset.testing.engines import EngineFactory, check_engine, engine_checks
from anonset.testing.methods import check_method, method_checks
from anonset.testing.models import check_privacy_model, privacy_model_checks
from anonset.testing.released import recheck
from anonset.testing.sinks import SinkFactory, check_sink, sink_checks

__all__ = [
    "Check",
    "CheckFailure",
    "EngineFactory",
    "SinkFactory",
    "check_engine",
    "check_method",
    "check_privacy_model",
    "check_sink",
    "checks_of",
    "engine_checks",
    "method_checks",
    "parametrize_with_checks",
    "privacy_model_checks",
    "recheck",
    "sink_checks",
]


def checks_of(subject: Method | str | EngineFactory | SinkFactory | PrivacyModel) -> Iterator[tuple[str, Check]]:
    """The checks of any subject: a method (or its registered name), an engine, a sink or a privacy model."""
    if isinstance(subject, (Method, str)):
        return method_checks(subject)
    if isinstance(subject, EngineFactory):
        return engine_checks(subject)
    if isinstance(subject, SinkFactory):
        return sink_checks(subject)
    if isinstance(subject, PrivacyModel):
        return privacy_model_checks(subject)
    raise TypeError(f"no checks for {type(subject).__name__}: give a Method or its name, an EngineFactory, a"
                    " SinkFactory or a PrivacyModel")


def parametrize_with_checks(subjects: Iterable[Method | str | EngineFactory | SinkFactory | PrivacyModel]) -> Any:
    """A ``pytest.mark.parametrize`` over every check of every subject, with ids ``<subject>-<check>``.

    The decorated test takes one argument, ``check``, and calls it.
    """
    import pytest

    checks: list[Check] = []
    ids: list[str] = []
    for subject in subjects:
        label = _label(subject)
        for name, check in checks_of(subject):
            checks.append(check)
            ids.append(f"{label}-{name}")
    return pytest.mark.parametrize("check", checks, ids=ids)


def _label(subject: Any) -> str:
    if isinstance(subject, str):
        return subject
    if isinstance(subject, (Method, EngineFactory, SinkFactory)):
        return subject.name
    return str(type(subject).__name__)
