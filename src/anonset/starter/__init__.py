"""A commented starter configuration written from a data file (``anonset init DATA``).

A new user has a table and no configuration.  :func:`starter_config` reads the
table as ``anonset anonymize`` will, profiles every column and writes a YAML
configuration that ``anonset anonymize`` runs as it is, with comments that
explain each proposal.  One module per step:

* :mod:`~anonset.starter.profile`: the file, as anonymize reads it; a CSV
  without a header is refused;
* :mod:`~anonset.starter.profile`: one
  :class:`~anonset.starter.profile.ColumnProfile` per column (distinct
  values, missing markers), the kind of a text column coming from
  :mod:`~anonset.starter.profile` (numeric, date, code, categorical);
* :mod:`~anonset.starter.propose`: the role proposed for each column (a
  :class:`~anonset.starter.propose.Proposal`), from its values and its name
  (the words looked for are in :mod:`~anonset.starter.profile`);
* :mod:`~anonset.starter.propose`: a quasi-identifier's hierarchy builder
  and its parameters (interval widths, date format, masking levels);
* :mod:`~anonset.starter.propose`: levels taken out until the ``optimal``
  search is small enough;
* :mod:`~anonset.starter.render`: the YAML text and its comments (scalars
  written by :mod:`~anonset.starter.render`, numbers by
  :mod:`~anonset.starter.profile`);
* :mod:`~anonset.starter.config_from_data`: :func:`starter_config`, all of it
  from a file, the text checked with :func:`anonset.config.parse_config`.

The public API: :func:`read_data` (the table, as anonymize reads it),
:func:`profile_table` (one :class:`ColumnProfile` per column),
:func:`propose` (one :class:`Proposal` per column), :func:`fit_lattice`,
:func:`render_config` (the YAML text) and :func:`starter_config`, which does
all of it from a file.
"""

from __future__ import annotations

from anonset.starter.config_from_data import StarterConfig, starter_config
from anonset.starter.profile import (
    MISSING_TOKENS,
    NEARLY_UNIQUE,
    ColumnProfile,
    check_header_is_not_data,
    profile_column,
    profile_table,
    read_data,
)
from anonset.starter.propose import LATTICE_BUDGET, Proposal, fit_lattice, interval_spec, lattice_size, propose
from anonset.starter.render import render_config

__all__ = [
    "LATTICE_BUDGET",
    "MISSING_TOKENS",
    "NEARLY_UNIQUE",
    "ColumnProfile",
    "Proposal",
    "StarterConfig",
    "check_header_is_not_data",
    "fit_lattice",
    "interval_spec",
    "lattice_size",
    "profile_column",
    "profile_table",
    "propose",
    "read_data",
    "render_config",
    "starter_config",
]
