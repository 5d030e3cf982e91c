"""The release policy of the trade-off searches: floors, which member is released, and what it claims.

A front method (``pareto-*``) finds a front of releases and releases one
member only when told which:

* **floors**: k-anonymity and distinct l-diversity in the requirements (or
  ``k`` and ``l_diversity`` in a config's ``privacy`` section) are floors on
  the members' ``k`` and ``l`` objectives, not models to enforce; any other
  model is refused, and a floor of 1 is no floor (:func:`front_floors`,
  :func:`config_floors`);
* **member choice**: member ``pick``, or without one the member meeting every
  floor with the least loss (:func:`chosen_member`); with neither, nothing
  could be chosen on the user's behalf (:func:`require_member_rule`);
* **what the released member claims**: k-anonymity with its ``k`` under the
  η rule and, when ``l`` is an objective, distinct l-diversity with its ``l``
  (:func:`claimed_requirements`); it is re-checked against that, and refused
  when it protects nothing (:func:`refuse_unprotected`).

Nothing here reads a table: the Anonymizer and the config call these rules.
The objectives module (which loads pandas) is imported only when a front is
there to choose from, so a config check stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from anonset.errors import ConfigError, InfeasibleError
from anonset.privacy.base import PrivacyModel, Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset
    from anonset.methods.pareto.objectives import FrontMember, ParetoResult

__all__ = [
    "CONFIG_KEYS",
    "chosen_member",
    "claimed_requirements",
    "config_floors",
    "front_floors",
    "member_rule",
    "member_threshold",
    "refuse_unprotected",
    "require_member_rule",
]

#: The objectives a front method measures when none are given (the default of its ``objectives`` option).
DEFAULT_OBJECTIVES = ("k", "glm")

#: The keys of a config's ``privacy`` section a front method reads: its floors and its budget η.
CONFIG_KEYS = ("max_suppression", "k", "l_diversity")


def front_floors(method: str, requirements: Requirements, options: Mapping[str, Any]) -> dict[str, float]:
    """The floors the requirements state for a front member: ``{"k": K, "l": L}`` (absent when trivial).

    Parameters
    ----------
    method : str
        The front method, as messages name it.
    requirements : Requirements
        The configured requirements: k-anonymity and distinct l-diversity
        are floors on the members' ``k`` and ``l`` objectives.
    options : mapping
        The method's options as given (``objectives``, ``sensitive``).

    Raises
    ------
    ConfigError
        A model that cannot be a floor, an l floor on another attribute than
        the l objective's, or a floor on an objective the search does not
        measure.
    """
    objectives = tuple(options.get("objectives", DEFAULT_OBJECTIVES))
    floors: dict[str, float] = {}
    for m in requirements.models:
        if isinstance(m, KAnonymity):
            name, value = "k", float(m.k)
        elif isinstance(m, DistinctLDiversity):
            name, value = "l", float(m.l)
            sensitive = options.get("sensitive")
            if sensitive is not None and m.attribute != sensitive:
                raise ConfigError(f"method {method!r}: the l floor is on {m.attribute!r} but the l objective"
                                  f" measures {sensitive!r}; use the same attribute")
        else:
            raise ConfigError(f"method {method!r} measures privacy through its objectives (k, l, s_k, s_l);"
                              f" {m.describe()} cannot be a floor: keep k and distinct l-diversity only")
        if value <= 1:
            continue
        if name not in objectives:
            raise ConfigError(f"method {method!r}: a floor on {name} needs {name} among the objectives"
                              f" (objectives: {', '.join(objectives)})")
        floors[name] = max(value, floors.get(name, value))
    return floors


def config_floors(privacy: Mapping[str, Any], where: str, method: str,
                  entries: Callable[[str], Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """A config's ``privacy`` section for a front method, as the section its requirements are read from.

    ``k`` and a distinct ``l_diversity`` are the floors :func:`front_floors`
    takes from the requirements; ``max_suppression`` is the budget η.  ``k``
    is 1 (no floor) when not given, so that the requirements hold a model.

    Parameters
    ----------
    privacy : mapping
        The ``privacy`` section as written.
    where : str
        The config file, as messages name it.
    method : str
        The front method.
    entries : callable
        ``entries(key)``: the mappings under ``privacy.<key>`` (one or a
        list), read as the config reads every model list.

    Raises
    ------
    ConfigError
        Any other key, or an l-diversity variant other than distinct.
    """
    others = sorted(key for key in privacy if key not in CONFIG_KEYS)
    if others:
        raise ConfigError(f"{where}: method {method} measures privacy through its objectives (k, l, s_k, s_l);"
                          f" remove privacy.{others[0]}: only k and l_diversity (floors on the released member)"
                          " and max_suppression (the budget η) apply")
    for entry in entries("l_diversity"):
        if entry.get("variant", "distinct") != "distinct":
            raise ConfigError(f"{where}: method {method}: privacy.l_diversity is a floor on the l objective,"
                              " which is distinct l-diversity; drop `variant` or set it to distinct")
    floors = {key: privacy[key] for key in ("k", "l_diversity") if key in privacy}
    if "k" not in floors:
        floors["k"] = 1
    return {**floors, "max_suppression": privacy.get("max_suppression", 0.0)}


def member_rule(pick: int | None, floors: Mapping[str, float]) -> Literal["pick", "floor"] | None:
    """How the released member is chosen: ``pick``, ``floor`` (the least-loss member meeting them), or None."""
    if pick is not None:
        return "pick"
    return "floor" if floors else None


def require_member_rule(method: str, pick: int | None, floors: Mapping[str, float]) -> None:
    """Refuse, before any work, a front method told neither a member nor a floor: nothing could be chosen."""
    if member_rule(pick, floors) is None:
        raise ConfigError(f"method {method!r} finds a front of releases and releases one only when told"
                          " which: pick a member (--pick N; run without an output to see the front) or state"
                          " a floor such as privacy.k (KAnonymity(K) in the API)")


def chosen_member(result: ParetoResult, floors: Mapping[str, float], pick: int | None) -> int:
    """Index of the member to release: ``pick``, or the least-loss member that meets every floor.

    Without a pick, members meeting the floors are ranked by their loss
    objectives, then suppressed records, then their privacy objectives
    (higher first), then their place in the front.

    Raises
    ------
    ConfigError
        ``pick`` is beyond the front, or names a member below a floor.
    InfeasibleError
        No member meets the floors.
    """
    from anonset.methods.pareto.objectives import OBJECTIVES

    front = result.front
    meets = [all(m.objectives[name] >= value for name, value in floors.items()) for m in front]
    if pick is not None:
        if pick >= len(front):
            raise ConfigError(f"--pick {pick}: the front has {len(front)} members (0 to {len(front) - 1})")
        if not meets[pick]:
            raise ConfigError(f"--pick {pick}: that member ({_objective_text(front[pick])}) is below"
                              f" the floor {_floor_text(floors)}; pick a member that meets it, or drop --pick")
        return pick
    candidates = [i for i, ok in enumerate(meets) if ok]
    if not candidates:
        best = max(front, key=lambda m: tuple(m.objectives[name] for name in floors))
        raise InfeasibleError(f"no member of the front meets the floor {_floor_text(floors)} within the"
                              f" suppression budget; the front reaches {_objective_text(best)}")
    losses = [name for name in result.objectives if not OBJECTIVES[name].maximize]
    gains = [name for name in result.objectives if OBJECTIVES[name].maximize]

    def rank(i: int) -> tuple[float, ...]:
        m = front[i]
        return (*(m.objectives[n] for n in losses), float(m.suppressed_rows),
                *(-m.objectives[n] for n in gains), float(i))

    return min(candidates, key=rank)


def member_threshold(sizes: NDArray[np.int64], eta: float, n_rows: int) -> int:
    """The released member's k under the η rule: its classes smaller than this are suppressed."""
    from anonset.methods.pareto.objectives import budget_rows, suppression_threshold

    return int(suppression_threshold(sizes, budget_rows(eta, n_rows)))


def claimed_requirements(member: FrontMember, k: int, eta: float, sensitive: str | None,
                         dataset: Dataset) -> Requirements:
    """The privacy the released member claims, which its release is re-checked against.

    k-anonymity with ``k`` (:func:`member_threshold`) and, when ``l`` is an
    objective, distinct l-diversity with the member's ``l`` on ``sensitive``
    (the method's option; default the dataset's first sensitive attribute),
    under the budget ``eta``.
    """
    claimed: list[PrivacyModel] = [KAnonymity(int(k))]
    if "l" in member.objectives:
        claimed.append(DistinctLDiversity(sensitive or dataset.sensitive[0], member.objectives["l"]))
    return Requirements(claimed, eta)


def refuse_unprotected(index: int, claimed: Requirements) -> None:
    """Refuse a released member whose claimed privacy protects nothing (it is 1-anonymous)."""
    if not claimed.protects:
        raise ConfigError(f"member {index} of the front is 1-anonymous ({claimed.describe()}): it"
                          " protects nothing; pick another member, state a floor such as privacy.k, or allow"
                          " an unprotected release by name (--allow-unprotected)")


def _objective_text(member: FrontMember) -> str:
    return ", ".join(f"{name} = {value:g}" for name, value in member.objectives.items())


def _floor_text(floors: Mapping[str, float]) -> str:
    return ", ".join(f"{name} >= {value:g}" for name, value in floors.items())
