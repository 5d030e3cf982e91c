"""Class-label columns: one rule for finding the target a metric or a method works for.

A column is a target when its role is ``target``.  Where one target is
needed (the classification metric, Byun's classification-aware k-member, the
``cm`` objective, the train/test protocol) it is the column named, which must
have role target, or else the only column with role target; none, or several
and none named, is a one-line ``ConfigError`` saying how to fix it.
"""

from __future__ import annotations

from anonset.core.dataset import Dataset, Role
from anonset.errors import ConfigError

__all__ = ["target_columns", "the_target"]


def target_columns(dataset: Dataset) -> tuple[str, ...]:
    """Every column with role target, in column order."""
    return tuple(c for c, spec in dataset.specs.items() if spec.role is Role.TARGET)


def the_target(dataset: Dataset, name: str | None, who: str) -> str:
    """The one target ``who`` works for: ``name`` (which must have role target), or the only target column.

    Parameters
    ----------
    dataset : Dataset
        The data.
    name : str, optional
        The target the user named.
    who : str
        What needs the target, for messages (``objective cm``, ``k-member class_penalty``).
    """
    targets = target_columns(dataset)
    if name is not None:
        if name not in targets:
            role = dataset.specs[name].role.value if name in dataset.specs else None
            what = f"a {role} column" if role else "not a column"
            raise ConfigError(f"{dataset.source}: {who} needs a class label column; {name!r} is {what}: give it"
                              " role target" + (f" (targets: {', '.join(targets)})" if targets else ""))
        return name
    if len(targets) == 1:
        return targets[0]
    if not targets:
        raise ConfigError(f"{dataset.source}: {who} needs a class label column and no column has role target;"
                          " set role: target on one")
    raise ConfigError(f"{dataset.source}: {who} needs one class label column and {len(targets)} have role target"
                      f" ({', '.join(targets)}); name the one to use (option target)")
