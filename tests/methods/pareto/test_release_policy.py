"""The trade-off family's release policy called directly: floors, member choice, what the member claims.

Fronts here are written by hand (``FrontMember`` values), so each rule is
checked against a case small enough to read: which floors requirements
state, which member ``pick`` or the floors release, the η rule's k, the
privacy the released member claims, and a config's privacy section.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.pareto.objectives import FrontMember, ParetoResult
from anonset.methods.pareto.release_policy import (
    chosen_member,
    claimed_requirements,
    config_floors,
    front_floors,
    member_rule,
    member_threshold,
    refuse_unprotected,
    require_member_rule,
)
from anonset.privacy import (
    AverageRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    HighestRisk,
    KAnonymity,
    Requirements,
)


def _front(members: list[tuple[dict[str, float], int]], objectives: tuple[str, ...] = ("k", "glm")) -> ParetoResult:
    """A front of hand-written members (objectives, suppressed rows), in the order given."""
    front = [FrontMember((i, 0), values, suppressed) for i, (values, suppressed) in enumerate(members)]
    empty = np.zeros((0, 2), dtype=np.int64)
    return ParetoResult(objectives=objectives, quasi=("a", "b"), front=front, nodes_evaluated=len(front),
                        lattice_size=10, seconds=0.0, eta=0.0, epsilon=None, evaluated_levels=empty,
                        evaluated_values=np.zeros((0, len(objectives))), evaluated_suppressed=np.zeros(0, np.int64))


# ---------------------------------------------------------------- floors
def test_k_anonymity_and_distinct_l_diversity_are_floors_and_a_floor_of_one_is_none() -> None:
    options: dict[str, Any] = {"objectives": ("k", "l", "glm")}
    assert front_floors("pareto-ea", Requirements([KAnonymity(1)]), options) == {}
    assert front_floors("pareto-ea", Requirements([KAnonymity(5)]), options) == {"k": 5.0}
    assert front_floors("pareto-ea", Requirements([KAnonymity(5), DistinctLDiversity("s", 3)]),
                        options) == {"k": 5.0, "l": 3.0}
    assert front_floors("pareto-ea", Requirements([DistinctLDiversity("s", 1), KAnonymity(2)]), options) == {"k": 2.0}
    # several floors on one objective: the highest
    assert front_floors("pareto-ea", Requirements([KAnonymity(4), KAnonymity(7), KAnonymity(3)]),
                        options) == {"k": 7.0}
    # the default objectives are k and glm
    assert front_floors("pareto-exhaustive", Requirements([KAnonymity(3)]), {}) == {"k": 3.0}
    # highest risk is k-anonymity: a k floor
    assert front_floors("pareto-ea", Requirements([HighestRisk(0.2)]), {}) == {"k": 5.0}


@pytest.mark.parametrize(("requirements", "options", "words"), [
    (Requirements([KAnonymity(2), EntropyLDiversity("s", 2)]), {"objectives": ("k", "l", "glm")},
     "method 'pareto-ea' measures privacy through its objectives (k, l, s_k, s_l); entropy 2-diversity on s"
     " cannot be a floor: keep k and distinct l-diversity only"),
    (Requirements([AverageRisk(0.1)]), {}, "average risk <= 0.1 cannot be a floor"),
    (Requirements([KAnonymity(2), DistinctLDiversity("s", 2)]), {"objectives": ("k", "glm")},
     "method 'pareto-ea': a floor on l needs l among the objectives (objectives: k, glm)"),
    (Requirements([DistinctLDiversity("s", 2)]), {"objectives": ("k", "l"), "sensitive": "t"},
     "method 'pareto-ea': the l floor is on 's' but the l objective measures 't'; use the same attribute"),
])
def test_a_floor_the_front_cannot_meet_is_refused_in_one_line(requirements: Requirements, options: dict[str, Any],
                                                              words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        front_floors("pareto-ea", requirements, options)
    assert words in str(caught.value) and "\n" not in str(caught.value)


# ---------------------------------------------------------------- member choice
def test_the_member_rule_is_the_pick_then_the_floors_else_none() -> None:
    assert member_rule(0, {}) == "pick"
    assert member_rule(2, {"k": 5.0}) == "pick"
    assert member_rule(None, {"k": 5.0}) == "floor"
    assert member_rule(None, {}) is None
    require_member_rule("pareto-ea", 0, {})
    require_member_rule("pareto-ea", None, {"k": 2.0})
    with pytest.raises(ConfigError, match="releases one only when told which: pick a member"):
        require_member_rule("pareto-ea", None, {})


def test_without_a_pick_the_least_loss_member_meeting_every_floor_is_chosen() -> None:
    result = _front([({"k": 2, "glm": 0.1}, 0), ({"k": 5, "glm": 0.4}, 3), ({"k": 6, "glm": 0.3}, 0),
                     ({"k": 9, "glm": 0.9}, 0)])
    assert chosen_member(result, {"k": 5.0}, None) == 2  # k 6 costs less than k 5 here
    assert chosen_member(result, {"k": 7.0}, None) == 3
    assert chosen_member(result, {}, None) == 0  # no floor: every member meets it; the least loss
    assert chosen_member(result, {"k": 2.0}, None) == 0


def test_ties_on_loss_go_to_fewer_suppressed_records_then_more_privacy_then_the_first() -> None:
    result = _front([({"k": 4, "glm": 0.5}, 2), ({"k": 4, "glm": 0.5}, 1), ({"k": 6, "glm": 0.5}, 1),
                     ({"k": 6, "glm": 0.5}, 1)])
    assert chosen_member(result, {"k": 3.0}, None) == 2


def test_a_pick_is_released_as_it_is_when_it_meets_the_floors() -> None:
    result = _front([({"k": 2, "glm": 0.1}, 0), ({"k": 5, "glm": 0.4}, 0)])
    assert chosen_member(result, {}, 0) == 0
    assert chosen_member(result, {"k": 5.0}, 1) == 1
    with pytest.raises(ConfigError, match=r"--pick 0: that member \(k = 2, glm = 0.1\) is below the floor k >= 5;"):
        chosen_member(result, {"k": 5.0}, 0)
    with pytest.raises(ConfigError, match=r"--pick 2: the front has 2 members \(0 to 1\)"):
        chosen_member(result, {}, 2)


def test_no_member_meeting_the_floors_is_infeasible_and_says_how_far_the_front_reaches() -> None:
    result = _front([({"k": 2, "l": 1, "glm": 0.1}, 0), ({"k": 4, "l": 2, "glm": 0.4}, 0)],
                    objectives=("k", "l", "glm"))
    with pytest.raises(InfeasibleError, match="no member of the front meets the floor k >= 5, l >= 2 within the"
                                              " suppression budget; the front reaches k = 4, l = 2, glm = 0.4"):
        chosen_member(result, {"k": 5.0, "l": 2.0}, None)


# ---------------------------------------------------------------- what the released member claims
def test_the_members_k_is_the_eta_rule_on_its_class_sizes() -> None:
    sizes = np.array([1, 1, 2, 5, 8], dtype=np.int64)
    assert member_threshold(sizes, 0.0, 17) == 1  # nothing may go: every class stays
    assert member_threshold(sizes, 2 / 17, 17) == 2  # the two singletons go
    assert member_threshold(sizes, 4 / 17, 17) == 5  # the classes of one and two go


def test_the_member_claims_its_k_and_its_l_when_l_is_an_objective() -> None:
    dataset = Dataset(pd.DataFrame({"a": ["x", "y"] * 3, "s": ["p", "q", "r"] * 2}),
                      {"a": {"role": "quasi"}, "s": {"role": "sensitive"}})
    plain = FrontMember((1,), {"k": 3, "glm": 0.2}, 0)
    claimed = claimed_requirements(plain, 3, 0.1, None, dataset)
    assert claimed.describe() == "3-anonymity, suppression <= 0.1 of records"
    with_l = FrontMember((1,), {"k": 3, "l": 2, "glm": 0.2}, 0)
    assert claimed_requirements(with_l, 3, 0.0, None, dataset).describe() == (
        "3-anonymity, distinct 2-diversity on s")
    assert claimed_requirements(with_l, 3, 0.0, "t", dataset).describe() == "3-anonymity, distinct 2-diversity on t"


def test_a_one_anonymous_member_is_refused() -> None:
    refuse_unprotected(0, Requirements([KAnonymity(2)]))
    refuse_unprotected(0, Requirements([KAnonymity(1), DistinctLDiversity("s", 2)]))
    with pytest.raises(ConfigError, match=r"member 3 of the front is 1-anonymous \(1-anonymity\): it protects"
                                          " nothing; pick another member"):
        refuse_unprotected(3, Requirements([KAnonymity(1)]))


# ---------------------------------------------------------------- a config's privacy section
def _entries(section: dict[str, Any]) -> Any:
    def read(key: str) -> list[dict[str, Any]]:
        value = section.get(key)
        return [] if value is None else value if isinstance(value, list) else [value]

    return read


def test_a_config_states_floors_as_k_and_a_distinct_l_diversity() -> None:
    privacy: dict[str, Any] = {"max_suppression": 0.05}
    assert config_floors(privacy, "c.yaml", "pareto-ea", _entries(privacy)) == {"k": 1, "max_suppression": 0.05}
    privacy = {"k": 5, "l_diversity": {"attribute": "s", "l": 2}}
    assert config_floors(privacy, "c.yaml", "pareto-ea", _entries(privacy)) == {
        "k": 5, "l_diversity": {"attribute": "s", "l": 2}, "max_suppression": 0.0}


@pytest.mark.parametrize(("privacy", "words"), [
    ({"k": 5, "t_closeness": {"attribute": "s", "t": 0.2}},
     "c.yaml: method pareto-ea measures privacy through its objectives (k, l, s_k, s_l); remove privacy.t_closeness:"
     " only k and l_diversity (floors on the released member) and max_suppression (the budget η) apply"),
    ({"l_diversity": [{"attribute": "s", "l": 2}, {"attribute": "s", "l": 2, "variant": "entropy"}]},
     "c.yaml: method pareto-ea: privacy.l_diversity is a floor on the l objective, which is distinct l-diversity;"
     " drop `variant` or set it to distinct"),
])
def test_a_config_section_that_states_no_floor_is_refused_in_one_line(privacy: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_floors(privacy, "c.yaml", "pareto-ea", _entries(privacy))
    assert str(caught.value) == words
