"""The random sample a release is made of, when a privacy model asks for one (differential privacy).

SafePub's differential privacy keeps each record with probability β before
anything else; the release is made of the sample and says so (a warning
naming how many records of how many it holds).  The draw is seeded: the same
seed gives the same sample, and so the same release, byte for byte.  The
sample is encoded with the hierarchies of the whole table (the generalization
does not depend on which records were drawn).
"""

from __future__ import annotations

import numpy as np

from anonset.core.dataset import Dataset
from anonset.errors import ConfigError
from anonset.privacy.base import Requirements

__all__ = ["sample_records"]


def sample_records(dataset: Dataset, requirements: Requirements, seed: int) -> tuple[Dataset, str | None]:
    """The dataset of the records sampled for ``requirements`` (all of them when no model samples), and what was done.

    Raises
    ------
    ConfigError
        The records are not in memory (a table in a database, or on Spark).
    """
    model = requirements.sampling_model
    if model is None or model.sampling_probability is None:
        return dataset, None
    probability, what = model.sampling_probability, model.describe()
    table = dataset.table
    if table is None:
        raise ConfigError(f"{dataset.source}: {what} samples the records, which must be in memory; use engine: numpy")
    keep = np.random.default_rng(seed).random(dataset.n_rows) < probability
    sample = Dataset(table[keep].reset_index(drop=True), dataset.resolved_specs(), source=dataset.source)
    dropped = dataset.n_rows - sample.n_rows
    note = (f"the release is a random sample of {sample.n_rows:,} of the {dataset.n_rows:,} records, each kept with"
            f" probability {probability:.4g} (seed {seed}), as {what} requires; the other {dropped:,} records are"
            " not in it, nor are the records of classes below k")
    return sample, note
