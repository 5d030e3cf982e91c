"""Released columns as codes: each record's index into the distinct texts its column holds.

The re-check and the caveats group records by the text of their released
values.  A column of Python strings is factorized by pandas; a categorical
column (the quasi-identifiers of the release of an Arrow table) is grouped
through its categories' texts and an Arrow text column through Arrow's
dictionary encoding, so no record becomes a Python string.  Two categories
with the same text are one value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from anonset.core.dataset import code_dtype
from anonset.core.distinct import arrow_text, distinct_of_arrow

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SUPPRESSED", "text_codes"]

#: The value written in every quasi-identifier of a suppressed record.
SUPPRESSED = "*"


def text_codes(column: pd.Series, missing: str, sort: bool = False
               ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[np.object_]]:
    """Each record's index into the distinct texts of ``column`` (the narrowest integers that hold it), and those texts.

    Parameters
    ----------
    column : pandas.Series
        A released column.
    missing : str
        The text a missing value (NaN, None, null) reads as.
    sort : bool
        Number the texts in sorted order (else in order of first appearance).
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        texts = np.append(np.asarray(list(map(str, column.cat.categories)), dtype=object), missing)
        code_of_text, distinct = pd.factorize(texts, sort=False)
        category = column.cat.codes.to_numpy()
        if len(category) and category.min() < 0:
            category = np.where(category < 0, len(texts) - 1, category)
        codes = code_of_text.astype(code_dtype(len(distinct)))[category]
        used = np.bincount(codes, minlength=len(distinct)) > 0
        if not used.all():  # texts no record holds (unused categories, the missing text) are not values
            renumber = (np.cumsum(used) - 1).astype(codes.dtype)
            codes, distinct = renumber[codes], distinct[used]
        values = np.asarray(distinct, dtype=object)
    else:
        text = arrow_text(column)
        if text is not None:
            found = distinct_of_arrow(text, missing)
            assert found.inverse is not None
            codes, values = found.inverse.astype(code_dtype(len(found.values)), copy=False), found.values
        else:
            strings = column.astype(object).where(column.notna(), missing).astype(str).to_numpy()
            codes, uniques = pd.factorize(strings, sort=False)
            codes, values = codes.astype(code_dtype(len(uniques))), np.asarray(uniques, dtype=object)
    if sort and len(values):
        order = np.argsort(values.astype(str), kind="stable")
        rank = np.empty(len(order), dtype=codes.dtype)
        rank[order] = np.arange(len(order))
        codes, values = rank[codes], values[order]
    return cast("NDArray[np.signedinteger[Any]]", codes), values
