"""The starter configuration of a data file: read, profile, propose, fit the lattice, write and check the text.

:func:`starter_config` is ``anonset init`` without the command: it reads the
file (:func:`~anonset.starter.profile.read_data`), profiles its columns,
proposes a role and a hierarchy for each, takes hierarchy levels out until
the ``optimal`` search is small enough (or chooses ``mondrian``), writes the
commented YAML text and checks it with :func:`anonset.config.parse_config`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from anonset.starter.profile import K, check_header_is_not_data, profile_table, read_data
from anonset.starter.propose import LATTICE_BUDGET, Proposal, fit_lattice, propose
from anonset.starter.render import render_config

__all__ = ["StarterConfig", "starter_config"]


@dataclass(frozen=True)
class StarterConfig:
    """A starter configuration: its YAML text, the proposals it holds and notes for the terminal."""

    text: str
    proposals: list[Proposal]
    method: str
    notes: list[str] = field(default_factory=list)


def starter_config(data: str | Path, config: str | Path | None = None, delimiter: str | None = None,
                   *, base: str | Path | None = None) -> StarterConfig:
    """Read ``data`` and write the starter configuration for it.

    Parameters
    ----------
    data : str or Path
        The CSV or Parquet file.
    config : str or Path, optional
        Where the configuration will be saved: its folder anchors the
        relative paths.  Default: a file in ``base``.
    delimiter : str, optional
        CSV delimiter (default: sniffed, as ``anonset anonymize`` does).
    base : str or Path, optional
        The folder of a configuration printed rather than saved (default: the
        current folder).

    Raises
    ------
    DataError
        The data cannot be read (see :func:`~anonset.starter.profile.read_data`).
    """
    data_path = Path(data)
    table, sep = read_data(data_path, delimiter)
    folder = Path(config).parent if config is not None else Path(base) if base is not None else Path.cwd()
    profiles = profile_table(table)
    if sep is not None:
        check_header_is_not_data(data_path, profiles)
    proposals = propose(profiles)
    fitted, fits = fit_lattice(proposals)
    method = "optimal" if fits else "mondrian"
    if not fits:  # mondrian has no lattice: the hierarchies keep every level
        fitted = proposals
    notes = []
    if table.num_rows < K:
        notes.append(f"only {table.num_rows} records: k is {table.num_rows}, the most a table this small allows")
    if not any(p.role == "quasi" for p in fitted):
        notes.append("no column was proposed as a quasi-identifier: anonymize refuses a config without one; mark"
                     " the columns an attacker may know as role: quasi")
    if not fits:
        notes.append(f"the quasi-identifiers' lattice has more than {LATTICE_BUDGET:,} candidate generalizations"
                     " even with one level per hierarchy, too many for method optimal: the config uses mondrian")
    text = render_config(fitted, table.num_rows, _relative(data_path, folder), sep, data_path.stem, method,
                         Path(config).name if config is not None else "CONFIG.yaml")
    _self_check(text, folder)
    return StarterConfig(text, fitted, method, notes)


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder``; absolute when the two share no folder but the root."""
    target, start = path.resolve(), folder.resolve()
    try:
        if os.path.commonpath([target, start]) == target.anchor:
            return target.as_posix()
        return Path(os.path.relpath(target, start)).as_posix()
    except ValueError:  # another drive (Windows)
        return target.as_posix()


def _self_check(text: str, folder: Path) -> None:
    """The text must be a configuration anonset accepts (a failure here is a bug in this module).

    The text is read by libyaml when PyYAML has it (the pure-Python reader
    takes seconds on a table of thousands of columns).
    """
    from anonset.config import parse_config

    parse_config(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), folder / "anonset-init.yaml")
