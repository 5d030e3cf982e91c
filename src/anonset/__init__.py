"""anonset: anonymize microdata for safe release.

The public surface is kept small::

    from anonset import Dataset, Hierarchy, Anonymizer, anonymize, Requirements, KAnonymity

See README.md for a quick start and docs/ for the user guide.
"""

__version__ = "0.1.0"

from anonset.anonymizer import Anonymizer, anonymize
from anonset.dataset import AttributeSpec, AttributeType, Dataset, Role, TableProfile
from anonset.errors import (
    AnonsetError,
    ConfigError,
    DataError,
    HierarchyError,
    InfeasibleError,
    InputError,
)
from anonset.hierarchy import Hierarchy, read_hierarchy
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    Requirements,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.release import Release

__all__ = [
    "AnonsetError",
    "Anonymizer",
    "AttributeSpec",
    "AttributeType",
    "ConfigError",
    "DataError",
    "Dataset",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "Hierarchy",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "KAnonymity",
    "RecursiveCLDiversity",
    "Release",
    "Requirements",
    "Role",
    "SquaredErrorDiversity",
    "TCloseness",
    "TableProfile",
    "__version__",
    "anonymize",
    "read_hierarchy",
]
