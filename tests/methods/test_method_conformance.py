"""One conformance suite for every registered method, read from the registry (no hand-kept list).

The checks are anonset's own contract checks (:mod:`anonset.testing`),
generated from each method's declaration: the release passes anonset's
verifier and an independent re-check from its released values; the same
seed gives the same bytes (and a method that is not randomized gives them
for any seed); an unknown or ill-typed option is a ``ConfigError`` naming
what is allowed; every declared privacy model is enforced and every other
one refused in one line; a zero budget suppresses nothing, and a budget is
refused by a method that suppresses nothing; ``pick`` releases the ranked
entry it names (and is refused by a method that ranks nothing); ``fit``
returns its family's result; ``transform`` on new rows is re-checked; a
method that runs in a database gives the numpy engine's release on DuckDB
and releases a table inside it, one that needs the records in memory
refuses such a table; a distributed method refuses what no fragment can
judge; every warm-up of ``anonset compile`` is valid.  A method registered
from outside anonset runs the same checks with ``anonset.testing.check_method``.
"""

from __future__ import annotations

from anonset.methods import registry
from anonset.testing import Check, parametrize_with_checks


@parametrize_with_checks(registry.names())
def test_method_conformance(check: Check) -> None:
    check()
