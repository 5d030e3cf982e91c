"""The research-value searches' release policy called directly: the success list, and the entry ``pick`` releases."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.core.dataset import Dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.methods.full_domain.ranked import picked_levels, success_list
from anonset.methods.full_domain.research_value import rv_global
from anonset.methods.full_domain.search import SearchResult
from anonset.privacy import KAnonymity, Requirements
from support import random_table


def _searched() -> tuple[Dataset, SearchResult]:
    table, hierarchies = random_table(np.random.default_rng(4), 300, 3)
    dataset = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    requirements = Requirements([KAnonymity(3)], 0.02)
    return dataset, rv_global(dataset, NumpyEngine(dataset, requirements.request), requirements)


def test_no_pick_or_pick_zero_releases_the_searchs_choice_and_a_pick_its_entry_of_the_list() -> None:
    dataset, result = _searched()
    entries = success_list(result)
    assert len(entries) >= 2, "the example needs a success list of two strings at least"
    assert picked_levels(result, dataset.quasi, None) == result.levels
    assert picked_levels(result, dataset.quasi, 0) == result.levels
    assert tuple(entries[0]["levels"][q] for q in dataset.quasi) == result.levels  # the list is best first
    last = len(entries) - 1
    assert picked_levels(result, dataset.quasi, last) == tuple(entries[last]["levels"][q] for q in dataset.quasi)
    # the levels follow the quasi-identifiers asked for, whatever the order of the entry's mapping
    backwards = tuple(reversed(dataset.quasi))
    assert picked_levels(result, backwards, last) == tuple(entries[last]["levels"][q] for q in backwards)


def test_a_pick_beyond_the_success_list_is_one_line_naming_its_length() -> None:
    dataset, result = _searched()
    n = len(success_list(result))
    with pytest.raises(ConfigError) as caught:
        picked_levels(result, dataset.quasi, n)
    assert str(caught.value) == f"--pick {n}: the success list has {n} entries (0 to {n - 1})"


def test_a_search_without_a_success_list_has_an_empty_one() -> None:
    dataset, result = _searched()
    result.details.pop("success_list")
    assert success_list(result) == []
    assert picked_levels(result, dataset.quasi, 0) == result.levels
    with pytest.raises(ConfigError, match=r"--pick 1: the success list has 0 entries \(0 to -1\)"):
        picked_levels(result, dataset.quasi, 1)
