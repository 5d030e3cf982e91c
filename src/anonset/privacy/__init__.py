"""Privacy models judged per class, over the release (risk bounds) or against a population; the suppression budget."""

from anonset.privacy.base import PrivacyModel, Requirements, Verdict
from anonset.privacy.differential_privacy import DifferentialPrivacy
from anonset.privacy.disclosure import DeltaDisclosure
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.kmap import KMap
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.likeness import BetaLikeness
from anonset.privacy.population import DeltaPresence, PopulationKMap
from anonset.privacy.risk_models import AverageRisk, HighestRisk, PopulationUniqueness, SampleUniqueness
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness

__all__ = [
    "AverageRisk",
    "BetaLikeness",
    "DeltaDisclosure",
    "DeltaPresence",
    "DifferentialPrivacy",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "HighestRisk",
    "KAnonymity",
    "KMap",
    "PopulationKMap",
    "PopulationUniqueness",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "Requirements",
    "SampleUniqueness",
    "SquaredErrorDiversity",
    "TCloseness",
    "Verdict",
]
