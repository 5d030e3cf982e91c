"""The registry: every method by name, the one list the Anonymizer, the config, the CLI, the docs and the tests read.

An entry is the import path of the module that declares the method (its
``METHOD`` object, a :class:`~anonset.methods.base.Method`); the module is
imported the first time the method is asked for, so importing the registry
loads no method family.  Adding a method is one module and one line in
``_BUILTIN`` (or :func:`register` for a method that lives outside anonset).
"""

from __future__ import annotations

from importlib import import_module

from anonset.errors import ConfigError
from anonset.methods.base import Method

__all__ = ["accountable", "distributed", "get", "names", "origin", "register", "unregister"]

#: Method name -> module declaring ``METHOD``; the order is the order of docs and messages.
_BUILTIN: dict[str, str] = {
    "optimal": "anonset.methods.full_domain.optimal",
    "exhaustive": "anonset.methods.full_domain.exhaustive",
    "rv-global": "anonset.methods.full_domain.rv_global",
    "rv-local": "anonset.methods.full_domain.rv_local",
    "rv-hybrid": "anonset.methods.full_domain.rv_hybrid",
    "rv-partitioned": "anonset.methods.full_domain.rv_partitioned",
    "k-member": "anonset.methods.cluster.k_member",
    "xu-top-down": "anonset.methods.cluster.xu_top_down",
    "xu-bottom-up": "anonset.methods.cluster.xu_bottom_up",
    "mondrian": "anonset.methods.mondrian.mondrian",
    "local-suppression": "anonset.methods.local_suppression.local_suppression",
    "microaggregation": "anonset.methods.microaggregation.microaggregation",
    "pareto-exhaustive": "anonset.methods.pareto.pareto_exhaustive",
    "pareto-ea": "anonset.methods.pareto.pareto_ea",
}

_entries: dict[str, str | Method] = dict(_BUILTIN)


def names() -> tuple[str, ...]:
    """Every registered method name, built-in ones first in their documented order."""
    return tuple(_entries)


def get(name: str) -> Method:
    """The method called ``name``; an unknown name is a ``ConfigError`` listing the known ones."""
    entry = _entries.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ConfigError(f"unknown method {name!r}; use one of {' | '.join(_entries)}")
    if isinstance(entry, Method):
        return entry
    method = import_module(entry).METHOD
    if not isinstance(method, Method) or method.name != name:
        raise RuntimeError(f"{entry}.METHOD is not the Method {name!r} (this is a bug in its declaration)")
    _entries[name] = method
    return method


def distributed() -> tuple[str, ...]:
    """The methods that can run distributed (their ``Method.distributed`` is set), by name in alphabetical order.

    Reads every method's declaration (no method code).
    """
    return tuple(sorted(n for n in _entries if get(n).distributed is not None))


def origin(name: str) -> str:
    """The module that declares method ``name`` (for a method registered as an object, its ``fit``'s module)."""
    if name in _BUILTIN:
        return _BUILTIN[name]
    entry = _entries.get(name)
    if entry is None:
        raise ConfigError(f"unknown method {name!r}; use one of {' | '.join(_entries)}")
    return entry if isinstance(entry, str) else entry.fit.__module__


def accountable(name: str) -> str:
    """Whom a release by method ``name`` that fails its re-check points to: anonset, or the module declaring the method.

    A method registered from outside anonset (:func:`register`) is named with
    its module, and :func:`anonset.testing.check_method` as the way to find
    which of the registry's promises it breaks.
    """
    module = origin(name) if name in _entries or name in _BUILTIN else "anonset"
    if module == "anonset" or module.startswith("anonset."):
        return "anonset"
    return (f"method {name!r} of {module}, registered from outside anonset, or in anonset"
            f" (anonset.testing.check_method({name!r}) names a promise the method breaks)")


def register(method: Method | str, name: str | None = None) -> None:
    """Add a method: a :class:`Method`, or the import path of a module declaring ``METHOD`` (then give ``name``).

    A name that is already registered is refused: unregister it first.
    """
    key = method.name if isinstance(method, Method) else name
    if not key:
        raise ValueError("register a Method, or a module path together with the method's name")
    if key in _entries:
        raise ValueError(f"method {key!r} is already registered")
    _entries[key] = method


def unregister(name: str) -> None:
    """Remove a method added with :func:`register` (built-in methods stay)."""
    if name in _BUILTIN:
        raise ValueError(f"method {name!r} is built in and cannot be removed")
    _entries.pop(name, None)
