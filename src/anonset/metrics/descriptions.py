"""What each reported utility metric means, in a line a custodian can read, and which way is better.

The summaries, the HTML report and ``anonset compare`` print these beside the
figures, so that ``ncp 19213.1`` comes with "lower is better" and what it
counts.  :func:`describe_metric` covers every name in
:data:`anonset.metrics.METRICS`; a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MetricDescription", "describe_metric", "METRIC_DESCRIPTIONS"]


@dataclass(frozen=True)
class MetricDescription:
    """A metric's direction (``lower`` or ``higher`` is better), its range, and its meaning: a line and a few words."""

    name: str
    better: str
    range: str
    meaning: str
    short: str = ""

    @property
    def direction_text(self) -> str:
        """``lower is better`` or ``higher is better``."""
        return f"{self.better} is better"

    def to_json(self) -> dict[str, str]:
        return {"better": self.better, "range": self.range, "meaning": self.meaning}

    def terminal_text(self) -> str:
        """``lower is better; share of the domain covered, 0-1``: for a summary printed in a terminal."""
        return f"{self.direction_text}; {self.short}" if self.short else self.direction_text


METRIC_DESCRIPTIONS: dict[str, MetricDescription] = {d.name: d for d in (
    MetricDescription("loss", "lower", "0 to 1",
                      "share of each attribute's domain a released value covers, averaged (ARX's Loss); 0 = nothing"
                      " generalized, 1 = everything suppressed",
                      short="share of the domain a value covers, 0-1"),
    MetricDescription("glm", "lower", "0 to records × attributes",
                      "general loss metric: per cell, (values covered − 1) / (domain size − 1), summed over cells",
                      short="generalized cells, summed"),
    MetricDescription("ncp", "lower", "0 to records × attributes",
                      "normalized certainty penalty: per cell, the share of the attribute's range or leaves a value"
                      " covers, summed over cells",
                      short="certainty penalty, summed over cells"),
    MetricDescription("gcp", "lower", "0 to 1",
                      "global certainty penalty: NCP divided by records × attributes, so tables of any size compare",
                      short="certainty penalty per cell, 0-1"),
    MetricDescription("precision", "higher", "0 to 1",
                      "1 − the average height a value was generalized to (level / hierarchy height); 1 = original",
                      short="1 - average generalization height"),
    MetricDescription("discernibility", "lower", "records to records²",
                      "sum of squared class sizes (a suppressed record counts the whole table): how many records"
                      " each record is indistinguishable from",
                      short="sum of squared class sizes"),
    MetricDescription("aecs", "lower", "1 and up",
                      "average class size divided by k: 1 means classes are as small as k allows",
                      short="average class size / k"),
    MetricDescription("non_uniform_entropy", "lower", "0 and up (bits)",
                      "bits of information lost: how uncertain the original value is given the released one,"
                      " summed over cells",
                      short="bits of information lost"),
    MetricDescription("total_il", "lower", "0 and up",
                      "total information loss (Byun et al.): class size × the class's generalized spread, summed",
                      short="information loss of the classes"),
    MetricDescription("ambiguity", "lower", "records to records × domain",
                      "ambiguity (ARX): per record, how many combinations of original quasi-identifier values its"
                      " released values could stand for, summed",
                      short="combinations each record could be, summed"),
    MetricDescription("kl_divergence", "lower", "0 and up (bits)",
                      "KL-divergence (ARX): how far the release, spread evenly over what each class covers, is from"
                      " the input's distribution of quasi-identifier combinations",
                      short="divergence from the input, bits"),
    MetricDescription("publisher_payout", "higher", "records × −300 to records × 1200",
                      "publisher payout (ARX, prosecutor model, ARX's default costs): what the release is worth to"
                      " its publisher when an adversary re-identifies wherever that pays, summed over records",
                      short="the publisher's payout"),
    MetricDescription("cm", "lower", "0 to 1",
                      "classification metric: share of records whose class label is not their class's majority"
                      " label (or that are suppressed)",
                      short="records off their class's majority label"),
    MetricDescription("research_value", "higher", "0 and up",
                      "the custodian's research value of the generalization (weights × per-level values)",
                      short="the custodian's research value"),
)}


def describe_metric(name: str) -> MetricDescription:
    """The description of a reported metric; a generic one (direction unknown) for a name not listed."""
    found = METRIC_DESCRIPTIONS.get(name)
    if found is not None:
        return found
    return MetricDescription(name, "see docs/glossary.md", "", "")
