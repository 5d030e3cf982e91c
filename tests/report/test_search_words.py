"""Every figure a built-in method records is explained in words in the report."""

from __future__ import annotations

import pytest

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.report.search_words import SEARCH_WORDS, search_rows
from support import registered


@pytest.mark.parametrize("method", registered())
def test_every_figure_of_every_method_has_words(method: str) -> None:
    table = patient_register(300, seed=1)
    model = Anonymizer(patient_register_attributes(table), Requirements([KAnonymity(3)]), method=method)
    search = model.fit(table).release_.summary()["search"]
    unexplained = [key for key in search if key not in SEARCH_WORDS]
    assert not unexplained, f"{method} records {unexplained} without words in anonset.report.search_words"
    assert all(meaning for _, _, meaning in search_rows(search))
