"""anonset: anonymize microdata for safe release.

The public surface is kept small::

    from anonset import Dataset, Hierarchy, Anonymizer, anonymize, Requirements, KAnonymity

See README.md for a quick start and docs/ for the user guide.
"""

__version__ = "0.1.0"

from anonset.anonymizer import Anonymizer, anonymize  # noqa: E402
from anonset.dataset import AttributeSpec, AttributeType, Dataset, Role  # noqa: E402
from anonset.errors import (  # noqa: E402
    AnonsetError, ConfigError, DataError, HierarchyError, InfeasibleError, InputError,
)
from anonset.hierarchy import Hierarchy, read_hierarchy  # noqa: E402
from anonset.privacy import (  # noqa: E402
    DistinctLDiversity, EntropyLDiversity, KAnonymity, RecursiveCLDiversity, Requirements,
    SquaredErrorDiversity, TCloseness,
)
from anonset.release import Release  # noqa: E402

__all__ = [
    "__version__", "Anonymizer", "anonymize", "Dataset", "AttributeSpec", "AttributeType", "Role",
    "Hierarchy", "read_hierarchy", "Release", "Requirements", "KAnonymity", "DistinctLDiversity",
    "EntropyLDiversity", "RecursiveCLDiversity", "TCloseness", "SquaredErrorDiversity",
    "AnonsetError", "InputError", "DataError", "HierarchyError", "ConfigError", "InfeasibleError",
]
