"""Exceptions raised by anonset.

The tree::

    AnonsetError                  base of everything anonset raises on purpose
    ├── InputError                the user's input is wrong; the message says what to fix
    │   ├── DataError             a data file or table (missing, ragged, bad value, ...)
    │   ├── HierarchyError        a generalization hierarchy (uncovered value, two parents, ...)
    │   ├── ConfigError           a configuration value or privacy-model parameter
    │   └── UndeclaredColumnError a column the configuration does not name could single people out
    └── InfeasibleError           the requirements cannot be met by the method on this data

    UserWarning
    └── AnonsetWarning            what a custodian must know about a release (a lost attribute, a column
                                  released unchanged, suppression concentrated on one value, ...)

The CLI prints any ``InputError`` as one line and exits with code 2, and an
``InfeasibleError`` as one line with exit code 1.  Anything else escaping is a
bug in anonset and is reported as such.  Every warning on a release is also
issued with :func:`warnings.warn` as an :class:`AnonsetWarning`, so that a
notebook or a script sees it where the user looks.
"""

from __future__ import annotations

__all__ = [
    "AnonsetError",
    "AnonsetWarning",
    "ConfigError",
    "DataError",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "UndeclaredColumnError",
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


class UndeclaredColumnError(InputError):
    """A column no attribute names could single someone out, so it is not released unchanged.

    The message names the column, why it could identify someone, and the
    declaration that releases it (``role: identifier`` drops it,
    ``role: insensitive`` releases it as it is, ``role: quasi`` protects it).
    """


class InfeasibleError(AnonsetError):
    """No candidate release satisfies the privacy requirements."""


class AnonsetWarning(UserWarning):
    """Something a custodian must know about a release that does not stop it (see :mod:`warnings`)."""
