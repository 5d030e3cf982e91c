"""What a conformance check is, how it fails, and the small assertions every check is written with.

A :class:`Check` is one named, argument-free callable about one subject (a
method, an engine, a sink, a privacy model).  Calling it runs it; a failure
is a :class:`CheckFailure` (an ``AssertionError``, so pytest reports it as a
failed test) whose message names the subject, the check and what is wrong.
An unexpected exception inside a check becomes a ``CheckFailure`` too, with
the original chained; pytest's skip (a ``BaseException``) passes through, so
a check that needs an unreachable server skips.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from anonset.errors import AnonsetWarning

__all__ = ["Check", "CheckFailure", "expect", "one_line", "raises", "quiet"]


class CheckFailure(AssertionError):
    """A conformance check failed; the message names the subject, the check and what is wrong."""


@dataclass(frozen=True)
class Check:
    """One conformance check of one subject: call it to run it.

    Attributes
    ----------
    subject : str
        What is checked, as messages name it (``method 'mondrian'``, ``engine 'duckdb'``).
    name : str
        The check's name, unique for the subject (``enforces_TCloseness``).
    run : callable
        The check's body; it raises ``AssertionError`` when the subject fails it.
    """

    subject: str
    name: str
    run: Callable[[], None]

    def __call__(self) -> None:
        """Run the check; raise :class:`CheckFailure` naming the subject and the check when it fails."""
        try:
            self.run()
        except CheckFailure:
            raise
        except AssertionError as exc:
            raise CheckFailure(f"{self.subject} fails check {self.name!r}: {exc}") from exc
        except Exception as exc:
            raise CheckFailure(f"{self.subject} fails check {self.name!r}: it raised {type(exc).__name__}:"
                               f" {exc}") from exc

    def __repr__(self) -> str:
        return f"Check({self.subject}: {self.name})"


def expect(condition: object, message: str) -> None:
    """Raise ``AssertionError(message)`` unless ``condition`` holds."""
    if not condition:
        raise AssertionError(message)


def one_line(message: str, what: str) -> None:
    """An error message must be one line (the CLI prints it as is)."""
    expect("\n" not in message, f"{what} spans several lines: {message!r}")


@contextmanager
def raises(kinds: type[BaseException] | tuple[type[BaseException], ...], what: str,
           contains: tuple[str, ...] = (), pattern: str | None = None) -> Iterator[list[BaseException]]:
    """Expect the block to raise one of ``kinds`` with a one-line message holding every one of ``contains``.

    ``pattern``, when given, is a regular expression the message must match (``re.search``).

    Yields a list that holds the exception afterwards.  ``what`` says in
    words what should have been refused (for the failure message).
    """
    caught: list[BaseException] = []
    names = kinds.__name__ if isinstance(kinds, type) else " or ".join(k.__name__ for k in kinds)
    try:
        yield caught
    except kinds as exc:
        caught.append(exc)
        message = str(exc)
        one_line(message, f"the {type(exc).__name__} for {what}")
        missing = [c for c in contains if c not in message]
        expect(not missing, f"the {type(exc).__name__} for {what} does not say {missing[0]!r}: {message!r}"
               if missing else "")
        expect(pattern is None or re.search(pattern, message),
               f"the {type(exc).__name__} for {what} does not match {pattern!r}: {message!r}")
    else:
        raise AssertionError(f"{what} was not refused (expected {names})")


@contextmanager
def quiet() -> Iterator[None]:
    """Hide anonset's warnings about a release (a check looks at the release, not at what a user is told)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        yield
