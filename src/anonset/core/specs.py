"""Attribute specs: the role, type and generalization of each column, validated without loading any data.

A column's :class:`AttributeSpec` gives its *role* (identifier, quasi-identifier,
sensitive, insensitive, target, weight) and *type* (numeric, ordinal, categorical,
date), and optionally a hierarchy: a :class:`~anonset.core.hierarchy.Hierarchy`,
the path of a hierarchy file, or a builder mapping that the dataset builds from
the column's distinct values.  This module imports no table library, so a
config can be checked before any data (or pandas) is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from anonset.core.hierarchy import Hierarchy
from anonset.core.hierarchy_builders import check_builder_spec
from anonset.errors import ConfigError

__all__ = ["DEFAULT_MISSING", "AttributeSpec", "AttributeType", "HierarchyForm", "Role", "attribute_spec"]

DEFAULT_MISSING = ("",)

#: What ``AttributeSpec.hierarchy`` accepts: a hierarchy, a file path, or a builder mapping.
HierarchyForm = Hierarchy | Mapping[str, Any] | str | os.PathLike[str]


class Role(str, Enum):
    """What a column is, for disclosure purposes."""

    IDENTIFIER = "identifier"
    QUASI = "quasi"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    TARGET = "target"
    #: A survey's sampling weight: the people of the population a record stands for (one column per table).
    WEIGHT = "weight"


class AttributeType(str, Enum):
    """How a column's values are compared."""

    NUMERIC = "numeric"
    ORDINAL = "ordinal"
    CATEGORICAL = "categorical"
    DATE = "date"


@dataclass(frozen=True)
class AttributeSpec:
    """Role, type and generalization of one column.

    Parameters
    ----------
    role : Role
        Disclosure role; default insensitive.
    type : AttributeType
        Value type; default categorical.
    hierarchy : Hierarchy, str, path or mapping, optional
        Generalization hierarchy (quasi-identifiers; sensitive attributes for
        hierarchical t-closeness): a :class:`Hierarchy`, the path of a
        hierarchy file (ARX layout), or a builder mapping such as
        ``{"builder": "ordered", "fanouts": [2, 2]}``, which the dataset
        builds from the column's distinct values (missing markers excluded;
        the ``ordered`` builder follows ``order`` when given).
    missing : tuple of str
        Markers that denote a missing value (default: the empty string).
    missing_policy : {"value", "error"}
        ``value``: missing markers form a value of their own (added to the
        hierarchy as a branch that stays itself up to the root when the
        hierarchy does not list it); ``error``: a missing value is an error.
    order : tuple of str, optional
        The order of an ordinal attribute's values (else the hierarchy's leaf
        order, else sorted).
    min_level : int
        A quasi-identifier's minimum generalization (ARX's name): the full-domain
        searches release it at this level of its hierarchy or above (default
        0: its original values allowed).

    Use :func:`attribute_spec` to build one from a mapping with messages
    that name the attribute.
    """

    role: Role = Role.INSENSITIVE
    type: AttributeType = AttributeType.CATEGORICAL
    hierarchy: HierarchyForm | None = None
    missing: tuple[str, ...] = DEFAULT_MISSING
    missing_policy: str = "value"
    order: tuple[str, ...] | None = None
    min_level: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", _enum(Role, self.role, "role"))
        object.__setattr__(self, "type", _enum(AttributeType, self.type, "type"))
        if self.missing_policy not in ("value", "error"):
            raise ConfigError(f"missing policy must be 'value' or 'error'; got {self.missing_policy!r}")
        if not (self.hierarchy is None or isinstance(self.hierarchy, (Hierarchy, Mapping, str, os.PathLike))):
            raise ConfigError("`hierarchy` must be a Hierarchy, a hierarchy file path or a builder mapping such as"
                              f" {{'builder': 'flat'}}; got {self.hierarchy!r}")
        if self.order is not None:
            if isinstance(self.order, (str, bytes)) or not isinstance(self.order, Sequence):
                raise ConfigError(f"`order` must be a list of the values in order; got {self.order!r}")
            object.__setattr__(self, "order", tuple(str(v) for v in self.order))
        if isinstance(self.min_level, bool) or not isinstance(self.min_level, int) or self.min_level < 0:
            raise ConfigError(f"`min_level` must be a whole number, 0 or more (a level of the hierarchy); got"
                              f" {self.min_level!r}")
        if self.min_level and self.role is not Role.QUASI:
            raise ConfigError(f"`min_level` is a quasi-identifier's lowest released level; this attribute has role"
                              f" {self.role.value}: remove min_level or make it a quasi-identifier")


_SPEC_KEYS = tuple(f.name for f in fields(AttributeSpec))


def attribute_spec(name: str, spec: AttributeSpec | Mapping[str, Any], where: str | None = None) -> AttributeSpec:
    """The :class:`AttributeSpec` of column ``name`` from a spec or a mapping of its fields.

    Parameters
    ----------
    name : str
        The column.
    spec : AttributeSpec or mapping
        A spec, or a mapping such as ``{"role": "quasi", "hierarchy":
        {"builder": "intervals", "widths": [5, 10]}}``.
    where : str, optional
        How messages name the attribute (default ``attribute 'name'``).

    Raises
    ------
    ConfigError
        An unknown key, role, type or missing policy, or a builder mapping
        with an unknown builder or key; the message names the attribute.
    """
    prefix = where or f"attribute {name!r}"
    if isinstance(spec, AttributeSpec):
        result = spec
    elif isinstance(spec, Mapping):
        unknown = [str(k) for k in spec if k not in _SPEC_KEYS]
        if unknown:
            raise ConfigError(f"{prefix}: unknown key {unknown[0]!r}; use {' | '.join(_SPEC_KEYS)}")
        try:
            result = AttributeSpec(**{str(k): v for k, v in spec.items()})
        except ConfigError as exc:
            raise ConfigError(f"{prefix}: {exc}") from None
    else:
        raise ConfigError(f"{prefix}: give an AttributeSpec or a mapping such as {{'role': 'quasi'}}; got {spec!r}")
    if isinstance(result.hierarchy, Mapping):
        check_builder_spec(name, result.hierarchy)
    return result


def _enum(kind: type[Enum], value: Any, what: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = " | ".join(m.value for m in kind)
        raise ConfigError(f"unknown attribute {what} {value!r}; use one of {allowed}") from None
