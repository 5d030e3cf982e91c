"""Perturbation after the method: PRAM, noise, top and bottom coding of attributes that are not quasi-identifiers.

sdcMicro's model of a survey file protects its key variables (anonset's
quasi-identifiers) by recoding and suppression, and its other variables by
perturbation: PRAM for categorical ones, noise or top and bottom coding for
numeric ones.  A run's treatments (``perturbation:`` in a config,
``Anonymizer(perturbation=...)``) are applied in the order given to the
released table, after the method's release has passed its re-check and
before it is written; the release is then re-checked again from its released
values (a perturbed sensitive attribute is judged as released).  Their
guarantee is not k-anonymity: each treatment reports what it did (the
transition matrix, the noise's standard deviation, the values recoded), and
the numbers the treatments changed are measured once, original against
released: their risk by record linkage and interval disclosure
(:mod:`anonset.risk.perturbed`) and their loss by sdcMicro's ``dUtility``
figures (:mod:`anonset.metrics.perturbation`).

A treatment is a mapping naming its kind and attributes, and its parameters:

* ``{pram: [a, ...], pd: 0.8, alpha: 0.5}`` or ``{pram: [a], matrix: {from:
  {to: p}}}`` — each attribute on its own (:func:`~anonset.methods.perturbation.pram.pram`);
* ``{noise: [x, ...], percent: 150, method: additive | correlated}``
  (:func:`~anonset.methods.perturbation.noise.add_noise`);
* ``{top_code: [x, ...], above: B, value: V}`` and ``{bottom_code: [x, ...],
  below: B, value: V}`` (``value`` defaults to the bound).

Quasi-identifiers are refused (changing one after the classes formed would
split them), as are identifiers (never released).  A missing value, and a
sensitive value withheld as ``*``, stay as they are.  The draws come from one
generator seeded by the run's seed: the same seed gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset, Role
from anonset.errors import ConfigError
from anonset.methods.perturbation.noise import add_noise, bottom_code, top_code
from anonset.methods.perturbation.pram import pram
from anonset.recheck.columns import SUPPRESSED

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["KINDS", "Treatment", "check_treatments", "described", "perturb", "quasi_refusal", "treatments"]

#: Each kind of treatment with its parameters and their defaults (None: required).
KINDS: dict[str, dict[str, Any]] = {
    "pram": {"pd": 0.8, "alpha": 0.5, "matrix": None},
    "noise": {"percent": 150.0, "method": "additive"},
    "top_code": {"above": None, "value": None},
    "bottom_code": {"below": None, "value": None},
}
#: The kinds that change numbers (the others change categories).
NUMERIC_KINDS = ("noise", "top_code", "bottom_code")


@dataclass(frozen=True)
class Treatment:
    """One perturbation: its kind, the attributes it changes and its parameters (defaults filled in)."""

    kind: str
    attributes: tuple[str, ...]
    parameters: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def describe(self) -> str:
        """``additive noise of 150% of the spread of income, wage``."""
        return described({"kind": self.kind, "attributes": list(self.attributes), **self.parameters})


def described(done: Mapping[str, Any]) -> str:
    """A treatment in words, from its entry in a summary's ``perturbation.treatments`` (or its parameters)."""
    kind = done["kind"]
    if kind == "pram":
        given = done.get("matrix_given", done.get("matrix") is not None)
        what = "PRAM (the transition matrix given)" if given else f"PRAM (pd {done['pd']:g}, alpha {done['alpha']:g})"
    elif kind == "noise":
        what = f"{done['method']} noise of {done['percent']:g}% of the spread"
    elif kind == "top_code":
        what = f"top coding above {done['above']:g} to {done['value']:g}"
    else:
        what = f"bottom coding below {done['below']:g} to {done['value']:g}"
    return f"{what} of {', '.join(done['attributes'])}"


def treatments(given: Sequence[Mapping[str, Any]] | None) -> tuple[Treatment, ...]:
    """The treatments of a config's ``perturbation:`` list (or the API's), checked; a one-line ``ConfigError`` else."""
    if given is None:
        return ()
    if not isinstance(given, (list, tuple)):
        raise ConfigError(f"perturbation must be a list of treatments such as {{noise: [income], percent: 150}};"
                          f" got {given!r}")
    return tuple(_treatment(entry, i) for i, entry in enumerate(given))


def _treatment(entry: Any, index: int) -> Treatment:
    where = f"perturbation[{index}]"
    if isinstance(entry, Treatment):
        return entry
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where} must be a mapping such as {{pram: [occupation], pd: 0.8}}; got {entry!r}")
    kinds = [k for k in entry if k in KINDS]
    if len(kinds) != 1:
        raise ConfigError(f"{where} must name one kind of treatment, one of {' | '.join(KINDS)}, with the"
                          f" attributes it changes; got {dict(entry)!r}")
    kind = kinds[0]
    names = entry[kind]
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{where}: {kind} takes a list of column names; got {entry[kind]!r}")
    allowed = KINDS[kind]
    unknown = [k for k in entry if k != kind and k not in allowed]
    if unknown:
        raise ConfigError(f"{where}: {kind} has no parameter {unknown[0]!r}; its parameters are"
                          f" {', '.join(allowed)}")
    parameters = {k: entry.get(k, default) for k, default in allowed.items()}
    _check_parameters(where, kind, parameters)
    return Treatment(kind, tuple(names), parameters)


def _check_parameters(where: str, kind: str, p: dict[str, Any]) -> None:
    def number(name: str, low: float | None = None, high: float | None = None, low_open: bool = False) -> None:
        value = p[name]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)
        if ok and low is not None:
            ok = value > low if low_open else value >= low
        if ok and high is not None:
            ok = value <= high
        if not ok:
            bounds = ("" if low is None else f" {'>' if low_open else '>='} {low:g}") + (
                "" if high is None else f" and <= {high:g}")
            raise ConfigError(f"{where}: {kind}'s {name} must be a number{bounds}; got {value!r}")
        p[name] = float(value)

    if kind == "pram":
        number("pd", 0, 1, low_open=True)
        number("alpha", 0, 1)
        matrix = p["matrix"]
        if matrix is not None and not (isinstance(matrix, Mapping) and all(
                isinstance(row, Mapping) for row in matrix.values())):
            raise ConfigError(f"{where}: pram's matrix must map each category to {{category: probability}};"
                              f" got {matrix!r}")
    elif kind == "noise":
        number("percent", 0)
        if p["method"] not in ("additive", "correlated"):
            raise ConfigError(f"{where}: noise's method must be additive or correlated; got {p['method']!r}")
    else:
        bound = "above" if kind == "top_code" else "below"
        if p[bound] is None:
            raise ConfigError(f"{where}: {kind} needs {bound} (the bound beyond which values are recoded)")
        number(bound)
        if p["value"] is None:
            p["value"] = p[bound]
        number("value")


def quasi_refusal(t: Treatment, name: str) -> str:
    """Why treatment ``t`` cannot change quasi-identifier ``name``, and what to do instead (for a one-line error)."""
    if t.kind in ("top_code", "bottom_code"):
        bound = "top" if t.kind == "top_code" else "bottom"
        return (f"{t.kind} cannot change quasi-identifier {name!r} after its classes formed; code it in its"
                f" hierarchy instead: hierarchy: {{builder: intervals, widths: [...], {bound}: N}} groups the values"
                " beyond N on every level above the original values")
    return (f"{t.kind} cannot change quasi-identifier {name!r}: its classes formed on its values and would split;"
            " protect it with the method (generalization, local suppression, microaggregation), or make it"
            " sensitive or insensitive")


def check_treatments(dataset: Dataset, chosen: Sequence[Treatment]) -> None:
    """Refuse, in one line, a treatment of a column the table lacks, of a quasi-identifier or of an identifier."""
    for t in chosen:
        for name in t.attributes:
            if name not in dataset.columns:
                raise ConfigError(f"{dataset.source}: {t.kind} names column {name!r}, which is not in the table;"
                                  f" columns are {', '.join(dataset.columns)}")
            role = dataset.specs[name].role if name in dataset.specs else Role.INSENSITIVE
            if role is Role.QUASI:
                raise ConfigError(f"{dataset.source}: {quasi_refusal(t, name)}")
            if role is Role.IDENTIFIER:
                raise ConfigError(f"{dataset.source}: {t.kind} names identifier {name!r}, which is never released")
        if t.kind == "noise" and t.parameters["method"] == "correlated" and len(t.attributes) < 2:
            raise ConfigError(f"{dataset.source}: correlated noise keeps the correlations of several attributes;"
                              f" give two or more, or use method: additive for {t.attributes[0]!r}")


def perturb(table: pd.DataFrame, dataset: Dataset, chosen: Sequence[Treatment],
            seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The released ``table`` with every treatment applied in order, and what they did (see the module docstring).

    What they did: ``treatments``, one entry per treatment, and, when some
    changed numbers, ``numbers``: the attributes, and their risk and loss
    measured against ``table`` as it was given.

    Raises
    ------
    ConfigError
        A numeric treatment of a column that holds no number, a PRAM matrix
        that does not cover the column's categories or whose rows do not sum
        to 1.
    """
    out = table.copy()
    rng = np.random.default_rng(seed)
    facts: list[dict[str, Any]] = []
    for t in chosen:
        if t.kind == "pram":
            facts.append(_pram(out, dataset, t, rng))
        else:
            facts.append(_numbers(out, dataset, t, rng))
    done: dict[str, Any] = {"treatments": facts}
    numeric = list(dict.fromkeys(a for t in chosen if t.kind in NUMERIC_KINDS for a in t.attributes))
    if numeric:
        from anonset.metrics.perturbation import perturbation_loss
        from anonset.risk.perturbed import interval_disclosure, record_linkage

        held = np.column_stack([_held(table[n], dataset, n) for n in numeric])
        original = np.column_stack([_as_numbers(table[n], held[:, j]) for j, n in enumerate(numeric)])
        released = np.column_stack([_as_numbers(out[n], held[:, j]) for j, n in enumerate(numeric)])
        done["numbers"] = {"attributes": numeric,
                           **{key: round(float(v), 6) for key, v in perturbation_loss(original, released).items()},
                           "record_linkage": round(record_linkage(original, released), 6),
                           "interval_disclosure": round(interval_disclosure(original, released), 6)}
    return out, done


def _held(column: pd.Series, dataset: Dataset, name: str) -> NDArray[np.bool_]:
    """The records whose value is neither missing (NaN, a declared marker) nor withheld (``*``)."""
    markers = list(dataset.specs[name].missing) if name in dataset.specs else []
    text = column.astype(str)
    return np.asarray(column.notna() & ~text.isin([*markers, SUPPRESSED]), dtype=np.bool_)


def _pram(table: pd.DataFrame, dataset: Dataset, t: Treatment, rng: np.random.Generator) -> dict[str, Any]:
    changed: dict[str, int] = {}
    matrices: dict[str, dict[str, dict[str, float]]] = {}
    for name in t.attributes:
        column = table[name]
        held = _held(column, dataset, name)
        text = column.astype(str).to_numpy()
        categories = np.unique(text[held])
        codes = np.full(len(text), -1, dtype=np.int64)
        codes[held] = np.searchsorted(categories, text[held])
        given = t.parameters["matrix"]
        matrix = None if given is None else _given_matrix(dataset, name, given, categories)
        try:
            released, used = pram(codes, rng, t.parameters["pd"], t.parameters["alpha"], matrix)
        except ValueError as exc:
            raise ConfigError(f"{dataset.source}, column {name!r}: pram: {exc}") from None
        moved = held & (released != codes)
        values = column.to_numpy(dtype=object).copy()
        values[moved] = categories[released[moved]]
        table[name] = pd.Series(values, index=table.index, dtype=object)
        changed[name] = int(moved.sum())
        matrices[name] = {str(a): {str(b): round(float(used[i, j]), 12) for j, b in enumerate(categories)
                                   if used[i, j] > 0}
                          for i, a in enumerate(categories)}
    return {"kind": "pram", "attributes": list(t.attributes), **{k: v for k, v in t.parameters.items()
                                                                 if k != "matrix"},
            "matrix_given": t.parameters["matrix"] is not None, "changed": changed, "transition": matrices}


def _given_matrix(dataset: Dataset, name: str, given: Mapping[str, Mapping[str, Any]],
                  categories: NDArray[np.str_]) -> NDArray[np.float64]:
    """The given ``{from: {to: p}}`` matrix over ``categories``; every category must have its row."""
    known = {str(c): i for i, c in enumerate(categories)}
    missing = [c for c in known if c not in {str(k) for k in given}]
    if missing:
        raise ConfigError(f"{dataset.source}, column {name!r}: pram's matrix has no row for category {missing[0]!r};"
                          f" its categories are {', '.join(known)}")
    matrix = np.zeros((len(known), len(known)))
    for a, row in given.items():
        if str(a) not in known:
            continue
        for b, p in row.items():
            if str(b) not in known:
                raise ConfigError(f"{dataset.source}, column {name!r}: pram's matrix sends {a!r} to {b!r}, which"
                                  " the column does not hold")
            matrix[known[str(a)], known[str(b)]] = float(p)
    return matrix


def _numbers(table: pd.DataFrame, dataset: Dataset, t: Treatment, rng: np.random.Generator) -> dict[str, Any]:
    names = list(t.attributes)
    held = np.column_stack([_held(table[n], dataset, n) for n in names])
    original = np.full(held.shape, np.nan)
    for j, name in enumerate(names):
        numbers = _as_numbers(table[name], held[:, j])
        bad = held[:, j] & np.isnan(numbers)
        if bad.any():
            value = table[name].to_numpy()[np.flatnonzero(bad)[0]]
            raise ConfigError(f"{dataset.source}, column {name!r}: {t.kind} changes numbers, and {value!r} is not"
                              " one; declare it as a missing marker or leave the column out")
        original[:, j] = numbers
    p = t.parameters
    facts: dict[str, Any] = {"kind": t.kind, "attributes": names, **p}
    if t.kind == "noise":
        released = add_noise(original, rng, p["percent"], p["method"])
        spread = (np.nanstd(original, axis=0, ddof=1) if p["method"] == "additive"
                  else np.sqrt(np.diag(np.atleast_2d(np.cov(original[~np.isnan(original).any(axis=1)],
                                                            rowvar=False)))))
        facts["noise_sd"] = {n: round(float(s * p["percent"] / 100), 12) for n, s in zip(names, spread, strict=True)}
    else:
        recode = top_code if t.kind == "top_code" else bottom_code
        bound = p["above"] if t.kind == "top_code" else p["below"]
        released = np.column_stack([recode(original[:, j], bound, p["value"]) for j in range(len(names))])
        facts["changed"] = {n: int(np.sum((released[:, j] != original[:, j]) & held[:, j]))
                            for j, n in enumerate(names)}
    for j, name in enumerate(names):
        table[name] = _written(table[name], released[:, j], held[:, j])
    return facts


def _as_numbers(column: pd.Series, held: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The column's held values as numbers (NaN elsewhere, and where a held value is not a number)."""
    return np.asarray(pd.to_numeric(column.where(held), errors="coerce").to_numpy(dtype=np.float64))


def _written(column: pd.Series, numbers: NDArray[np.float64], held: NDArray[np.bool_]) -> pd.Series:
    """The column with its held values replaced: a number column stays one (integers while every value is whole);
    a text column gets the numbers as text, its other values as they were."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        out = column.to_numpy(dtype=np.float64).copy()
        out[held] = numbers[held]
        if pd.api.types.is_integer_dtype(column.dtype) and np.all(np.mod(out, 1) == 0):
            return pd.Series(out.astype(column.dtype), index=column.index, name=column.name)
        return pd.Series(out, index=column.index, name=column.name)
    values = column.to_numpy(dtype=object).copy()
    kept = numbers[held]
    whole = np.mod(kept, 1) == 0
    text = pd.Series(kept).astype(str).to_numpy(dtype=object)  # the shortest text that reads back as the number
    text[whole] = pd.Series(kept[whole].astype(np.int64)).astype(str).to_numpy(dtype=object)
    values[held] = text
    return pd.Series(values, index=column.index, name=column.name, dtype=object)
