"""A commented starter configuration written from a data file (``anonset init DATA``).

A new user has a table and no configuration.  :func:`starter_config` reads the
table as ``anonset anonymize`` will, profiles every column and writes a YAML
configuration that ``anonset anonymize`` runs as it is, with comments that
explain each proposal.  One module per step:

* :mod:`~anonset.starter.reading`: the file, as anonymize reads it; a CSV
  without a header is refused;
* :mod:`~anonset.starter.profiling`: one
  :class:`~anonset.starter.column_profile.ColumnProfile` per column (distinct
  values, missing markers), the kind of a text column coming from
  :mod:`~anonset.starter.column_types` (numeric, date, code, categorical);
* :mod:`~anonset.starter.roles`: the role proposed for each column (a
  :class:`~anonset.starter.proposal.Proposal`), from its values and its name
  (the words looked for are in :mod:`~anonset.starter.names`);
* :mod:`~anonset.starter.hierarchies`: a quasi-identifier's hierarchy builder
  and its parameters (interval widths, date format, masking levels);
* :mod:`~anonset.starter.lattice`: levels taken out until the ``optimal``
  search is small enough;
* :mod:`~anonset.starter.render`: the YAML text and its comments (scalars
  written by :mod:`~anonset.starter.yaml_scalars`, numbers by
  :mod:`~anonset.starter.number_format`);
* :mod:`~anonset.starter.config_from_data`: :func:`starter_config`, all of it
  from a file, the text checked with :func:`anonset.config.parse_config`.

The public API: :func:`read_data` (the table, as anonymize reads it),
:func:`profile_table` (one :class:`ColumnProfile` per column),
:func:`propose` (one :class:`Proposal` per column), :func:`fit_lattice`,
:func:`render_config` (the YAML text) and :func:`starter_config`, which does
all of it from a file.
"""

from __future__ import annotations

from anonset.starter.column_profile import NEARLY_UNIQUE, ColumnProfile
from anonset.starter.config_from_data import StarterConfig, starter_config
from anonset.starter.hierarchies import interval_spec
from anonset.starter.lattice import LATTICE_BUDGET, fit_lattice, lattice_size
from anonset.starter.profiling import MISSING_TOKENS, profile_column, profile_table
from anonset.starter.proposal import Proposal
from anonset.starter.reading import check_header_is_not_data, read_data
from anonset.starter.render import render_config
from anonset.starter.roles import propose

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
