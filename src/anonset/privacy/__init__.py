"""Privacy models judged per equivalence class, and the suppression budget."""

from anonset.privacy.base import PrivacyModel, Requirements, Verdict
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness

__all__ = [
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KAnonymity",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "Requirements",
    "SquaredErrorDiversity",
    "TCloseness",
    "Verdict",
]
