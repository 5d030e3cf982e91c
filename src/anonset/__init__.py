"""anonset: anonymize microdata for safe release.

The public surface is kept small::

    from anonset import Anonymizer, Requirements, KAnonymity, read_table, read_hierarchy

See README.md for a quick start and docs/ for the user guide.  The names are
imported on first use: ``import anonset`` itself loads only the exceptions.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from anonset.errors import (
    AnonsetError,
    AnonsetWarning,
    ConfigError,
    DataError,
    HierarchyError,
    InfeasibleError,
    InputError,
    UndeclaredColumnError,
)
from anonset.version import __version__

#: Public name -> the module that defines it, imported on first use so that ``import anonset``
#: (and with it every ``anonset`` command) loads no numerical library until one is needed.
_LAZY = {
    "Anonymizer": "anonset.anonymizer", "anonymize": "anonset.anonymizer", "ReleaseViolation": "anonset.anonymizer",
    "AttributeSpec": "anonset.core.dataset", "AttributeType": "anonset.core.dataset", "Dataset": "anonset.core.dataset",
    "Role": "anonset.core.dataset", "TableProfile": "anonset.core.dataset",
    "Hierarchy": "anonset.hierarchy", "read_hierarchy": "anonset.hierarchy",
    "BetaLikeness": "anonset.privacy", "DeltaDisclosure": "anonset.privacy", "DeltaPresence": "anonset.privacy",
    "DifferentialPrivacy": "anonset.privacy",
    "DistinctLDiversity": "anonset.privacy", "EntropyLDiversity": "anonset.privacy",
    "KAnonymity": "anonset.privacy", "KMap": "anonset.privacy", "PopulationKMap": "anonset.privacy",
    "RecursiveCLDiversity": "anonset.privacy",
    "Requirements": "anonset.privacy", "SquaredErrorDiversity": "anonset.privacy",
    "TCloseness": "anonset.privacy",
    "Release": "anonset.release.release",
    "read_table": "anonset.io.tables", "write_table": "anonset.io.tables",
}

if TYPE_CHECKING:
    from anonset.anonymizer import Anonymizer, ReleaseViolation, anonymize
    from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role, TableProfile
    from anonset.core.hierarchy import Hierarchy
    from anonset.core.hierarchy_csv import read_hierarchy
    from anonset.io.tables import read_table, write_table
    from anonset.privacy import (
        BetaLikeness,
        DeltaDisclosure,
        DeltaPresence,
        DifferentialPrivacy,
        DistinctLDiversity,
        EntropyLDiversity,
        KAnonymity,
        KMap,
        PopulationKMap,
        RecursiveCLDiversity,
        Requirements,
        SquaredErrorDiversity,
        TCloseness,
    )
    from anonset.release.release import Release


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'anonset' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "AnonsetError",
    "AnonsetWarning",
    "Anonymizer",
    "AttributeSpec",
    "AttributeType",
    "BetaLikeness",
    "ConfigError",
    "DataError",
    "Dataset",
    "DeltaDisclosure",
    "DeltaPresence",
    "DifferentialPrivacy",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "Hierarchy",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "KAnonymity",
    "KMap",
    "PopulationKMap",
    "RecursiveCLDiversity",
    "Release",
    "ReleaseViolation",
    "Requirements",
    "Role",
    "SquaredErrorDiversity",
    "TCloseness",
    "TableProfile",
    "UndeclaredColumnError",
    "__version__",
    "anonymize",
    "read_hierarchy",
    "read_table",
    "write_table",
]
