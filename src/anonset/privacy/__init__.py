"""Privacy models judged per equivalence class or over the release (risk bounds), and the suppression budget."""

from anonset.privacy.base import PrivacyModel, Requirements, Verdict
from anonset.privacy.differential_privacy import DifferentialPrivacy
from anonset.privacy.disclosure import DeltaDisclosure
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.kmap import KMap
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.likeness import BetaLikeness
from anonset.privacy.risk_models import AverageRisk, HighestRisk, PopulationUniqueness, SampleUniqueness
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness

__all__ = [
    "AverageRisk",
    "BetaLikeness",
    "DeltaDisclosure",
    "DifferentialPrivacy",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "HighestRisk",
    "KAnonymity",
    "KMap",
    "PopulationUniqueness",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "Requirements",
    "SampleUniqueness",
    "SquaredErrorDiversity",
    "TCloseness",
    "Verdict",
]
