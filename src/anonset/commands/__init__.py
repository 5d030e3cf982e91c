"""Shared pieces of the ``anonset`` commands: how a user-facing error becomes one line and an exit code.

Commands that live in their own module (``anonset.commands.*``) are
registered on the ``anonset`` group in :mod:`anonset.cli`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import click

from anonset.errors import InfeasibleError, InputError

__all__ = ["user_errors"]

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn anonset's user-facing errors into one line on stderr and an exit code (2 bad input, 1 infeasible)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except InfeasibleError as exc:
            click.echo(f"infeasible: {exc}", err=True)
            sys.exit(1)

    return wrapper
