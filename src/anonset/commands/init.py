"""``anonset init DATA``: write a commented starter configuration from a data file.

The logic is in :mod:`anonset.starter`; this module is the command: where
the configuration goes (standard output, or a new file that must not exist
yet; ``/dev/stdout``, a device or a pipe is written into), and the one-line
errors of :func:`anonset.commands.user_errors`.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError, DataError

__all__ = ["init"]


@click.command(name="init", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("data", type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="Write the configuration to this new file (default: standard output). An existing file is"
                   " never overwritten; a device or pipe (/dev/stdout) is written into.")
@click.option("--delimiter", "-d", default=None,
              help="CSV field separator (default: sniffed from the file, as anonset anonymize does).")
@user_errors
def init(data: Path, output: Path | None, delimiter: str | None) -> None:
    """Write a starter configuration for the CSV or Parquet file DATA.

    anonset reads the file, finds each column's type (numeric, date, code,
    categorical) and distinct values, and proposes a role and a hierarchy for
    it: nearly unique columns (names, record numbers, free text) are dropped
    as identifiers, numbers get intervals, dates dates, codes masking,
    categories a flat hierarchy; columns named like a diagnosis or an income
    are sensitive.  The configuration runs as written (k = 5, 1% suppression,
    method optimal) and its comments explain every proposal: review them
    before you release anything.

    \b
    Example:
        anonset init patients.csv -o patients.yaml
        anonset anonymize patients.yaml      # writes patients-anonymized.csv
    """
    from anonset.io.delimiters import check_delimiter
    from anonset.io.outputs import atomic_write, is_stdout, is_stream
    from anonset.starter import starter_config

    if delimiter is not None:
        check_delimiter(delimiter, "--delimiter")
    to_file = output is not None and not is_stream(output)
    if output is not None and to_file:
        _check_new_file(output, data)
        result = starter_config(data, output, delimiter)
        _write_new(output, result.text)
    elif output is not None and not is_stdout(output):  # a device, a pipe, an open file: written into
        result = starter_config(data, None, delimiter)
        text = result.text

        def _write(tmp: Path) -> None:
            tmp.write_text(text, encoding="utf-8")

        atomic_write(output, _write)
    else:
        result = starter_config(data, None, delimiter)
        click.echo(result.text, nl=False)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if output is not None and to_file:
        roles = [p.role for p in result.proposals]
        counts = ", ".join(f"{roles.count(r)} {r}" for r in ("quasi", "sensitive", "identifier", "insensitive")
                           if roles.count(r))
        click.echo(f"wrote {output} ({counts}); review it, then run: anonset anonymize {output}", err=True)


def _check_new_file(output: Path, data: Path) -> None:
    """Refuse an output that exists (the data file above all) or whose folder does not."""
    if data.exists() and output.exists() and os.path.samefile(output, data):
        raise ConfigError(f"{output}: is the data file itself; give -o a new file name such as config.yaml")
    if output.is_dir():
        raise ConfigError(f"{output}: is a directory; give -o the path of a new file such as {output / 'config.yaml'}")
    if output.exists() or output.is_symlink():
        raise ConfigError(f"{output}: already exists; anonset init never overwrites a file: choose a new name or"
                          " remove the file first")
    if not output.parent.is_dir():
        raise DataError(f"{output}: folder {output.parent} does not exist; create it first or correct the path")


def _write_new(output: Path, text: str) -> None:
    """Create ``output`` (it must not exist, even if it appeared meanwhile) and write ``text``."""
    try:
        with open(output, "x", encoding="utf-8") as fh:
            try:
                fh.write(text)
            except BaseException:
                fh.close()
                output.unlink(missing_ok=True)
                raise
    except FileExistsError:
        raise ConfigError(f"{output}: already exists; anonset init never overwrites a file: choose a new name or"
                          " remove the file first") from None
    except OSError as exc:
        raise DataError(f"{output}: cannot be written ({exc.strerror}); choose a folder you can write to") from None
