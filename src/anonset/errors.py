"""Exceptions raised by anonset.

The tree::

    AnonsetError                  base of everything anonset raises on purpose
    ├── InputError                the user's input is wrong; the message says what to fix
    │   ├── DataError             a data file or table (missing, ragged, bad value, ...)
    │   ├── HierarchyError        a generalization hierarchy (uncovered value, two parents, ...)
    │   └── ConfigError           a configuration value or privacy-model parameter
    └── InfeasibleError           the requirements cannot be met by the method on this data

The CLI prints any ``InputError`` as one line and exits with code 2, and an
``InfeasibleError`` as one line with exit code 1.  Anything else escaping is a
bug in anonset and is reported as such.
"""

from __future__ import annotations

__all__ = [
    "AnonsetError",
    "ConfigError",
    "DataError",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
]


class AnonsetError(Exception):
    """Base class of all errors anonset raises deliberately."""


class InputError(AnonsetError):
    """The user's input (data, hierarchy, configuration) is invalid."""


class DataError(InputError):
    """A data file or table cannot be used as given."""


class HierarchyError(InputError):
    """A generalization hierarchy is malformed or does not cover the data."""


class ConfigError(InputError):
    """A configuration value or a privacy-model parameter is invalid."""


class InfeasibleError(AnonsetError):
    """No candidate release satisfies the privacy requirements."""
