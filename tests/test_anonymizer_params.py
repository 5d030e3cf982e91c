"""The Anonymizer's constructor parameters, declared once: their names, and the rules they must meet.

``get_params`` and ``set_params`` (scikit-learn's protocol) read the names
from the same declaration the constructor's checks are applied from, one
rule after the other in a fixed order; each refusal is one line.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from anonset.anonymizer import _PARAMETERS, _RULES, Anonymizer
from anonset.errors import ConfigError
from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements, TCloseness

ATTRIBUTES = {"age": {"role": "quasi"}, "s": {"role": "sensitive"}}


def test_the_declaration_names_the_constructors_parameters_in_its_order() -> None:
    signature = [name for name in inspect.signature(Anonymizer.__init__).parameters if name != "self"]
    assert list(_PARAMETERS) == signature
    assert {rule.name for rule in _RULES} <= set(_PARAMETERS)
    model = Anonymizer(ATTRIBUTES, Requirements([KAnonymity(2)]))
    assert list(model.get_params()) == signature
    with pytest.raises(ConfigError) as caught:
        model.set_params(nope=1)
    assert str(caught.value) == f"Anonymizer has no parameter 'nope'; its parameters are {', '.join(signature)}"


@pytest.mark.parametrize(("given", "message"), [
    ({"method": "nope"}, "unknown method 'nope'; use one of"),
    ({"method_options": {"nope": 1}}, "method 'optimal' has no option 'nope'; its options are"),
    ({"pick": -1}, "pick must be an int >= 0; got -1"),
    ({"pick": True}, "pick must be an int >= 0; got True"),
    ({"pick": 1.0}, "pick must be an int >= 0; got 1.0"),
    ({"pick": 1}, "pick (--pick) chooses an entry of a research-value search's success list or a member of a"
                  " trade-off front; method 'optimal' returns one release, so drop it"),
    ({"allow_unprotected": 1}, "allow_unprotected must be True or False; got 1"),
    ({"method": "mondrian", "requirements": Requirements([KAnonymity(2), TCloseness("s", 0.3)], 0.1)},
     "method 'mondrian' suppresses no records; set max_suppression to 0"),
    ({"requirements": Requirements([KAnonymity(1)])},
     "the requirements (1-anonymity) protect nothing: the release would be the input itself; set k >= 2 or another"
     " privacy model (or allow an unprotected release by name: allow_unprotected / --allow-unprotected)"),
    ({"requirements": Requirements([KAnonymity(1), EntropyLDiversity("s", 1)], 0.05)},
     "the requirements (1-anonymity, entropy 1-diversity on s, suppression <= 0.05 of records) protect nothing"),
    ({"on_violation": "ignore"}, "on_violation must be 'raise' or 'warn'; got 'ignore'"),
    ({"output_table": 5}, "output_table must be a table name such as 'schema.name'; got 5"),
    ({"output_table": "a..b"}, "output_table: invalid table name 'a..b'; write 'table' or 'schema.table'"),
    ({"replace_output": "yes"}, "replace_output must be True or False; got 'yes'"),
])
def test_each_rule_refuses_in_one_line(given: dict[str, Any], message: str) -> None:
    params: dict[str, Any] = {"requirements": Requirements([KAnonymity(2)]), **given}
    with pytest.raises(ConfigError) as caught:
        Anonymizer(ATTRIBUTES, **params)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_the_rules_are_checked_in_their_order_whatever_the_order_of_the_parameters() -> None:
    # the method's options before pick, pick before the requirements, the requirements before on_violation
    with pytest.raises(ConfigError, match="has no option 'nope'"):
        Anonymizer(ATTRIBUTES, Requirements([KAnonymity(1)]), on_violation="x", pick=-1, method_options={"nope": 1})
    with pytest.raises(ConfigError, match="pick must be"):
        Anonymizer(ATTRIBUTES, Requirements([KAnonymity(1)]), on_violation="x", pick=-1)
    with pytest.raises(ConfigError, match="protect nothing"):
        Anonymizer(ATTRIBUTES, Requirements([KAnonymity(1)]), on_violation="x")


def test_what_the_rules_let_through() -> None:
    k1 = Requirements([KAnonymity(1)])
    Anonymizer(ATTRIBUTES, k1, allow_unprotected=True)  # asked for by name
    Anonymizer(ATTRIBUTES, k1, method="pareto-ea", pick=0)  # a front's requirements are floors
    Anonymizer(ATTRIBUTES, Requirements([KAnonymity(2)]), method="rv-global", pick=3)
    for table in ("name", "schema.name", "db.schema.name", ("schema", "a.b")):
        Anonymizer(ATTRIBUTES, Requirements([KAnonymity(2)]), output_table=table, replace_output=True)


def test_set_params_applies_the_same_rules_and_keeps_the_parameters_it_refuses_out() -> None:
    model = Anonymizer(ATTRIBUTES, Requirements([KAnonymity(2)]))
    assert model.set_params(method="rv-global", pick=2) is model and (model.method, model.pick) == ("rv-global", 2)
    with pytest.raises(ConfigError, match="returns one release"):
        model.set_params(method="optimal")
    assert (model.method, model.pick) == ("rv-global", 2)
    with pytest.raises(ConfigError, match="protect nothing"):
        model.set_params(requirements=Requirements([KAnonymity(1)]), seed=9)
    assert model.requirements.describe() == "2-anonymity" and model.seed == 0
