"""The distinct keys of a table that stays in a database, with their records and weights, for the survey measures.

One ``GROUP BY`` over the quasi-identifiers brings one row per distinct
combination of their values (as text; ``NULL`` stays missing) to Python,
with ``_n`` (its records) and, given a weight column, ``_w`` (the sum of
their weights), ``_w_min`` (the smallest) and ``_w_count`` (the weights that
are numbers): what :func:`anonset.risk.survey_report.survey_table_of_groups`
turns into a survey table.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from anonset.engine.sql.base import SqlBackend, TableName
from anonset.engine.sql.profile import require_columns
from anonset.errors import DataError

__all__ = ["key_groups"]


def key_groups(backend: SqlBackend, table: TableName, quasi: Sequence[str], weight: str | None) -> pd.DataFrame:
    """The table grouped by ``quasi`` (text), with ``_n`` and, given ``weight``, ``_w``, ``_w_min``, ``_w_count``.

    Raises
    ------
    DataError
        A column is not in the table, or a weight is not a number (the
        database's cast fails); the message names the column.
    """
    require_columns(backend, table, [*quasi, *([weight] if weight else [])])
    texts = [f"CAST({backend.quote(q)} AS TEXT)" for q in quasi]
    select = [f"{t} AS {backend.quote(f'_q{j}')}" for j, t in enumerate(texts)] + ["COUNT(*) AS _n"]
    if weight is not None:
        number = f"CAST({backend.quote(weight)} AS DOUBLE PRECISION)"
        select += [f"SUM({number}) AS _w", f"MIN({number}) AS _w_min", f"COUNT({number}) AS _w_count"]
    sql = f"SELECT {', '.join(select)} FROM {backend.table_ref(table)} GROUP BY {', '.join(texts)}"
    try:
        rows = backend.fetch_rows(sql, what="group the records by their quasi-identifiers")
    except DataError as exc:
        if weight is None:
            raise
        raise DataError(f"{backend.where(table)}, column {weight!r} (role weight): the database could not read every"
                        f" weight as a number ({exc}); a sampling weight is a positive number") from None
    columns = [f"_q{j}" for j in range(len(quasi))] + ["_n"]
    if weight is not None:
        columns += ["_w", "_w_min", "_w_count"]
    return pd.DataFrame.from_records(rows, columns=columns)
