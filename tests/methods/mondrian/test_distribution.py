"""Distribution is a capability the mondrian method declares (``Method.distributed``), read from the registry.

Without Spark: the declaration's driver options, what it refuses fragment by fragment, and the
registry's list of distributed methods.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from anonset.errors import ConfigError
from anonset.methods import registry
from anonset.methods.base import Distribution, Family, Method, Option
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity
from anonset.privacy.tcloseness import TCloseness


def test_mondrian_declares_its_driver_options() -> None:
    method = registry.get("mondrian")
    assert method.distributed is not None
    assert method.distributed.option_names() == ("fragments", "sample_rows")
    # they are options of the method (the config and anonset methods list them), after the others
    assert [o.name for o in method.options][-2:] == ["fragments", "sample_rows"]
    assert all(method.option(o.name) is o for o in method.distributed.options)
    assert method.check_options({"fragments": 4})["fragments"] == 4
    with pytest.raises(ConfigError, match="option 'sample_rows' must be an integer >= 1"):
        method.check_options({"sample_rows": 0})


def test_the_registry_names_the_distributed_methods() -> None:
    assert registry.distributed() == ("mondrian",)
    assert all(registry.get(n).distributed is None for n in registry.names() if n != "mondrian")


def test_what_no_fragment_can_judge_is_refused_in_one_line() -> None:
    method = registry.get("mondrian")
    method.check_distributed(Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)]))
    with pytest.raises(ConfigError, match=r"^engine: spark with method: mondrian: 0.3-closeness .* on diagnosis"
                                          r" compares every class with the whole table's distribution, which no"
                                          r" fragment holds; use engine: numpy, or l-diversity instead$"):
        method.check_distributed(Requirements([KAnonymity(5), TCloseness("diagnosis", 0.3)]))
    with pytest.raises(ConfigError, match=r"^mondrian suppresses no records; set max_suppression to 0 \(got 0.1\)$"):
        method.check_distributed(Requirements([KAnonymity(5)], max_suppression=0.1))
    with pytest.raises(ConfigError, match="cannot run distributed"):
        registry.get("k-member").check_distributed(Requirements([KAnonymity(5)]))


def test_a_method_declares_its_driver_options_once() -> None:
    def fit(problem: Any) -> Any:
        raise AssertionError("not fitted here")

    extra = Option("parts", "int", None, "driver only", optional=True)
    method = Method(name="m", family=Family.GROUPING, summary="s", fit=fit, options=(Option("a", "bool", True, "a"),),
                    distributed=Distribution(options=(extra,)))
    assert [o.name for o in method.options] == ["a", "parts"]
    assert [o.name for o in replace(method, summary="t").options] == ["a", "parts"]  # not appended twice
