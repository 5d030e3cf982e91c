"""What a custodian must know before handing a release over, as warnings on the release.

Two things pass every privacy check and still defeat the purpose of a release:

* **a release that says nothing**: every record generalized into one class
  (or suppressed), so the quasi-identifiers carry no information.
  :func:`useless_release` says so and, for a full-domain node, names the
  privacy models that allow no step down from it (:func:`binding_models`);
* **columns the configuration does not name**, which pass through unchanged.
  :func:`passthrough_columns` flags those that are nearly unique per record
  (more than half of the records have a value of their own: an identifier
  or a precise measurement such as a charge) or that split the released
  classes into groups smaller than k when an attacker knows them (more than
  5% of the records, suppressed ones included: their unnamed columns are
  released too).  Declaring such a column removes the warning:
  ``role: identifier`` drops it, ``role: quasi`` generalizes it, and
  ``role: insensitive`` (or ``sensitive``) states that it is released as is
  on purpose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.engine.base import Engine
from anonset.privacy.base import Requirements
from anonset.release.columns import text_codes
from anonset.release.verify import classes_of_table

if TYPE_CHECKING:

    from anonset.engine.sql.base import SqlBackend

__all__ = [
    "NEARLY_UNIQUE",
    "SPLIT_SHARE",
    "binding_models",
    "passthrough_columns",
    "passthrough_columns_in_database",
    "useless_release",
]

#: An unnamed column with more distinct values than this share of the records is nearly unique.
NEARLY_UNIQUE = 0.5
#: An unnamed column that leaves more than this share of released records in groups smaller than k is flagged.
SPLIT_SHARE = 0.05


def useless_release(classes: int, suppressed: int, n_rows: int, requirements: Requirements,
                    binding: list[str] | None = None) -> str | None:
    """The warning for a release whose quasi-identifiers say nothing, or None.

    Parameters
    ----------
    classes : int
        Classes of the released table (suppressed records left out).
    suppressed : int
        Suppressed records.
    n_rows : int
        Records of the input.
    requirements : Requirements
        What the release satisfies.
    binding : list of str, optional
        The models that forced it (see :func:`binding_models`).
    """
    if classes > 1 or n_rows <= 1:
        return None
    what = ("every record is suppressed" if suppressed >= n_rows
            else "every released record falls in one class (every quasi-identifier at its most general value)")
    why = (f"; {' and '.join(binding)} allow{'s' if len(binding) == 1 else ''} no finer release" if binding
           else f"; the requirements ({requirements.describe()}) allow no finer release")
    return (f"the release is useless for analysis: {what}{why}; relax that requirement, allow more suppression,"
            " or use finer hierarchies")


def binding_models(engine: Engine, requirements: Requirements, levels: tuple[int, ...],
                   n_rows: int) -> list[str]:
    """The models that reject every node one step below ``levels`` (each judged alone, with the budget).

    A model named here is what holds the release at ``levels``: each
    neighbouring node with one attribute one level more specific violates
    it beyond the suppression budget.  Empty when ``levels`` is the bottom.
    """
    below = [levels[:i] + (level - 1,) + levels[i + 1:] for i, level in enumerate(levels) if level > 0]
    if not below:
        return []
    stats = [engine.class_stats(node) for node in below]
    names = []
    for model in requirements.models:
        alone = Requirements([model], requirements.max_suppression)
        if not any(alone.judge(s, n_rows).feasible for s in stats):
            names.append(model.describe())
    return names


def passthrough_columns(table: pd.DataFrame, dataset: Dataset, k: int) -> list[str]:
    """Warnings for columns released unchanged that the configuration does not name.

    Parameters
    ----------
    table : pandas.DataFrame
        The released records.
    dataset : Dataset
        The input (its ``attributes`` are the named columns).
    k : int
        The k of the release (2 when it has no k-anonymity beyond 1).
    """
    named = set(dataset.attributes)
    unnamed = [c for c in table.columns if c not in named and c not in dataset.quasi]
    if not unnamed or len(table) == 0:
        return []
    quasi_codes = classes_of_table(table, dataset.quasi)
    floor = max(k, 2)
    out = []
    for name in unnamed:
        codes, texts = text_codes(table[name], "nan")
        distinct = len(texts)
        if distinct > NEARLY_UNIQUE * len(table):
            out.append(_nearly_unique(name, distinct, len(table)))
            continue
        group = quasi_codes * (int(codes.max()) + 1) + codes
        ids, _ = pd.factorize(group)
        small = int((np.bincount(ids)[ids] < floor).sum())
        if small > SPLIT_SHARE * len(table):
            out.append(_splits_classes(name, small, floor))
    return out


def passthrough_columns_in_database(backend: SqlBackend, table: tuple[str, ...], dataset: Dataset,
                                    k: int) -> list[str]:
    """:func:`passthrough_columns` for a release written into a database table (two queries per column)."""
    named = set(dataset.attributes)
    unnamed = [c for c in backend.columns(table) if c not in named and c not in dataset.quasi]
    if not unnamed:
        return []
    ref = backend.table_ref(table)
    n_rows = int(backend.fetch_rows(f"SELECT COUNT(*) FROM {ref}", (), "counting the release")[0][0])
    floor = max(k, 2)
    out = []
    for name in unnamed:
        column = backend.quote(name)
        rows = backend.fetch_rows(f"SELECT COUNT(DISTINCT {column}) FROM {ref}", (), f"profiling {name!r}")
        distinct = int(rows[0][0])
        if distinct > NEARLY_UNIQUE * n_rows:
            out.append(_nearly_unique(name, distinct, n_rows))
            continue
        group = ", ".join([*(backend.quote(q) for q in dataset.quasi), column])
        rows = backend.fetch_rows(f"SELECT COALESCE(SUM(c), 0) FROM (SELECT COUNT(*) AS c FROM {ref} GROUP BY"
                                  f" {group}) AS g WHERE c < {int(floor)}", (), f"grouping on {name!r}")
        small = int(rows[0][0])
        if small > SPLIT_SHARE * n_rows:
            out.append(_splits_classes(name, small, floor))
    return out


def _nearly_unique(name: str, distinct: int, n_rows: int) -> str:
    return (f"column {name!r} is not named in the configuration and is released unchanged, but it is nearly"
            f" unique ({distinct:,} distinct values in {n_rows:,} records); declare it (role: identifier to drop"
            " it, quasi to generalize it, insensitive to keep it as is)")


def _splits_classes(name: str, small: int, floor: int) -> str:
    return (f"column {name!r} is not named in the configuration and is released unchanged; with the"
            f" quasi-identifiers it puts {small:,} released records in groups smaller than {floor} (an attacker"
            " who knows it can single them out); declare it (role: quasi to generalize it, identifier to drop it,"
            " insensitive to keep it as is)")
