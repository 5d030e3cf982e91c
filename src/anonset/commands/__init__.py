"""Shared pieces of the ``anonset`` commands: how a user-facing error becomes one line and an exit code.

Commands that live in their own module (``anonset.commands.*``) are
registered on the ``anonset`` group in :mod:`anonset.cli`.  A command's
warnings (every :class:`~anonset.errors.AnonsetWarning` issued while it
runs: a release's warnings, a target with one class, ...) are printed on
stderr as ``warning: ...`` lines when it ends, each once; a command that
fails prints its one error line only (what it warned about was not written).
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import click

from anonset.errors import AnonsetWarning, InfeasibleError, InputError

__all__ = ["user_errors"]

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn anonset's user-facing errors into one line on stderr and an exit code (2 bad input, 1 infeasible).

    The command's :class:`~anonset.errors.AnonsetWarning` warnings are
    printed as one ``warning:`` line each when it ends (see the module docstring).
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with warnings.catch_warnings():
            warnings.simplefilter("always", AnonsetWarning)
            seen: list[str] = []
            shown = warnings.showwarning

            def collect(message: Warning | str, category: type[Warning], *rest: Any, **more: Any) -> None:
                if issubclass(category, AnonsetWarning):
                    if str(message) not in seen:
                        seen.append(str(message))
                    return
                shown(message, category, *rest, **more)

            warnings.showwarning = collect
            try:
                result = func(*args, **kwargs)
            except InputError as exc:
                click.echo(f"error: {exc}", err=True)
                sys.exit(2)
            except InfeasibleError as exc:
                click.echo(f"infeasible: {exc}", err=True)
                sys.exit(1)
            for message in seen:
                click.echo(f"warning: {message}", err=True)
            return result

    return wrapper
