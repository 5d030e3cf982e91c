"""k-map and δ-presence against a population table: counts worked out by hand, searches, refusals, config and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer
from anonset.cli import main
from anonset.config import load_config, requirements_from_config
from anonset.core.dataset import Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.methods.full_domain.search import exhaustive_search, optimal_search
from anonset.metrics import Loss
from anonset.privacy import DeltaPresence, KAnonymity, KMap, PopulationKMap, Requirements
from anonset.testing.released import recheck
from support import random_table

AGE = Hierarchy.from_rows("age", [["20", "20-29", "*"], ["25", "20-29", "*"], ["30", "30-39", "*"],
                                  ["35", "30-39", "*"]])
SEX = Hierarchy.from_rows("sex", [["M", "*"], ["F", "*"]])
ATTRIBUTES = {"age": {"role": "quasi", "hierarchy": AGE}, "sex": {"role": "quasi", "hierarchy": SEX}}


def _rows(counts: dict[tuple[str, str], int]) -> pd.DataFrame:
    pairs = [pair for pair, n in counts.items() for _ in range(n)]
    return pd.DataFrame(pairs, columns=["age", "sex"])


#: 12 people: (20, M) x3, (25, M), (25, F) x2, (30, F) x2, (35, M), (35, F) x3
POPULATION = _rows({("20", "M"): 3, ("25", "M"): 1, ("25", "F"): 2, ("30", "F"): 2, ("35", "M"): 1, ("35", "F"): 3})
#: 5 of them: (20, M) x2, (25, F), (35, F) x2
SAMPLE = _rows({("20", "M"): 2, ("25", "F"): 1, ("35", "F"): 2})


def _by_label(model: PopulationKMap | DeltaPresence, levels: tuple[int, int]) -> dict[tuple[str, str], tuple[int, int]]:
    """(class labels) -> (records in the sample, population count) at ``levels``."""
    dataset = Dataset(SAMPLE, ATTRIBUTES, source="sample.csv")
    model.validate(dataset)
    stats = NumpyEngine(dataset).class_stats(levels)
    counts = model.population_counts(stats)
    labels = [(AGE.labels[levels[0]][a], SEX.labels[levels[1]][s]) for a, s in stats.keys]
    return {label: (int(n), int(c)) for label, n, c in zip(labels, stats.sizes, counts, strict=True)}


def test_population_counts_worked_out_by_hand() -> None:
    model = PopulationKMap(3, POPULATION, name="population.csv")
    # (20, M): 3 people; (25, F): 2; (35, F): 3
    assert _by_label(model, (0, 0)) == {("20", "M"): (2, 3), ("25", "F"): (1, 2), ("35", "F"): (2, 3)}
    # 20-29 men: (20, M) 3 + (25, M) 1; 20-29 women: (25, F) 2; 30-39 women: (30, F) 2 + (35, F) 3
    assert _by_label(model, (1, 0)) == {("20-29", "M"): (2, 4), ("20-29", "F"): (1, 2), ("30-39", "F"): (2, 5)}
    # 20-29: 3 + 1 + 2; 30-39: 2 + 1 + 3
    assert _by_label(model, (1, 1)) == {("20-29", "*"): (3, 6), ("30-39", "*"): (2, 6)}


def test_verdicts_worked_out_by_hand() -> None:
    dataset = Dataset(SAMPLE, ATTRIBUTES, source="sample.csv")
    engine = NumpyEngine(dataset)
    kmap, presence = PopulationKMap(3, POPULATION), DeltaPresence(0.4, 0.6, POPULATION)
    for model in (kmap, presence):
        model.validate(dataset)

    def verdict(model: PopulationKMap | DeltaPresence, levels: tuple[int, int]) -> dict[int, bool]:
        stats = engine.class_stats(levels)
        return {int(n): bool(ok) for n, ok in zip(stats.sizes, model.satisfied(stats), strict=True)
                if list(stats.sizes).count(n) == 1}

    # k-map 3: (25, F) matches 2 people, (20-29, F) too; at (1, 1) both classes match 6
    assert verdict(kmap, (0, 0))[1] is False and verdict(kmap, (1, 0))[1] is False
    assert kmap.satisfied(engine.class_stats((1, 1))).all()
    # δ-presence [0.4, 0.6]: (0, 0) has 2/3 twice; (1, 0) has 2/4, 1/2, 2/5; (1, 1) has 3/6 and 2/6
    assert presence.satisfied(engine.class_stats((0, 0))).sum() == 1
    assert presence.satisfied(engine.class_stats((1, 0))).all()
    assert verdict(presence, (1, 1)) == {3: True, 2: False}


def test_the_searches_release_the_hand_worked_optimum_rechecked() -> None:
    # nodes satisfying (0.4, 0.6)-presence without suppression: (1, 0), (2, 0) (*, M 2/5; *, F 3/7), (2, 1) 5/12;
    # (0, 1) has (20, *) at 2/3.  The least generalized of them is (1, 0).
    requirements = Requirements([DeltaPresence(0.4, 0.6, POPULATION, name="population.csv")])
    model = Anonymizer(ATTRIBUTES, requirements).fit(SAMPLE)
    assert model.levels_ == {"age": 1, "sex": 0}
    assert model.release_.verified
    assert recheck(model.release_.table, SAMPLE, model.dataset_, requirements) == []
    dataset = model.dataset_
    requirements.validate(dataset)
    for search in (optimal_search, exhaustive_search):
        assert search(dataset, NumpyEngine(dataset), requirements, Loss()).levels == (1, 0)
    # a release one level lower breaks it, and the re-check says which class and why
    lower = SAMPLE.copy()
    problems = recheck(lower, SAMPLE, dataset, requirements)
    assert problems and "holds 2 of the 3 records of population.csv it matches, outside [0.4, 0.6]" in problems[0]


@pytest.mark.parametrize("seed", range(10))
def test_optimal_equals_exhaustive_and_both_recheck(seed: int) -> None:
    rng = np.random.default_rng(seed)
    population, hierarchies = random_table(rng, int(rng.integers(150, 500)), int(rng.integers(2, 5)))
    population = population.drop(columns=["s", "x"])
    sample = population.sample(frac=float(rng.uniform(0.2, 0.6)), random_state=seed).reset_index(drop=True)
    attributes = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    low = float(rng.uniform(0.0, 0.3))
    models = [PopulationKMap(int(rng.integers(2, 8)), population)] if seed % 2 else \
        [KAnonymity(2), DeltaPresence(low, float(rng.uniform(low + 0.2, 0.9)), population)]
    requirements = Requirements(models, float(rng.choice([0.0, 0.02, 0.1])))
    dataset = Dataset(sample, attributes)
    requirements.validate(dataset)
    engine = NumpyEngine(dataset)
    try:
        exhaustive = exhaustive_search(dataset, engine, requirements, Loss())
    except Exception as exc:
        with pytest.raises(type(exc)):
            optimal_search(dataset, engine, requirements, Loss())
        return
    optimal = optimal_search(dataset, engine, requirements, Loss())
    assert optimal.levels == exhaustive.levels and optimal.objective == pytest.approx(exhaustive.objective)
    released = Anonymizer(attributes, requirements).fit(sample).release_
    assert released.verified
    assert recheck(released.table, sample, dataset, requirements) == []


def test_exact_k_map_is_monotone_with_a_budget_and_delta_presence_is_not() -> None:
    assert Requirements([PopulationKMap(3, POPULATION)], 0.1).monotonic
    assert not Requirements([DeltaPresence(0.1, 0.5, POPULATION)], 0.1).monotonic
    # without a budget: monotone from a share of 0 up; above 0, people no released class held can join a class
    # as it grows and push its share below min: with min 0.5, (0, 0) passes ((20, M) 2 of 3, (25, F) 1 of 2,
    # (35, F) 2 of 3) but (0, 1) fails, (25, *) holding 1 of the 3 people aged 25 (the man was in no class)
    assert Requirements([DeltaPresence(0.0, 0.5, POPULATION)]).monotonic
    half = Requirements([DeltaPresence(0.5, 1.0, POPULATION)])
    assert not half.monotonic
    dataset = Dataset(SAMPLE, ATTRIBUTES)
    half.validate(dataset)
    engine = NumpyEngine(dataset)
    assert half.judge(engine.class_stats((0, 0))).feasible and not half.judge(engine.class_stats((0, 1))).feasible
    assert not DeltaPresence(0.0, 1.0, POPULATION).protects and DeltaPresence(0.0, 0.99, POPULATION).protects


def test_hierarchies_are_built_from_the_population() -> None:
    # sex has no hierarchy given: built from the population, it holds "X", which the sample lacks
    population = pd.concat([POPULATION, pd.DataFrame({"age": ["30"] * 4, "sex": ["X"] * 4})], ignore_index=True)
    attributes = {"age": ATTRIBUTES["age"], "sex": {"role": "quasi"}}
    requirements = Requirements([PopulationKMap(4, population)])
    model = Anonymizer(attributes, requirements).fit(SAMPLE)
    assert set(model.dataset_.hierarchy("sex").labels[0]) == {"F", "M", "X"}
    assert model.release_.verified and recheck(model.release_.table, SAMPLE, model.dataset_, requirements) == []
    # a dataset built from the sample alone does not cover the population: said, naming the population
    sample_only = Dataset(SAMPLE, attributes, source="sample.csv")
    with pytest.raises(Exception, match="population.csv.*'sex'.*'X'|'X'.*population.csv"):
        PopulationKMap(4, population, name="population.csv").validate(sample_only)


def test_what_is_refused() -> None:
    dataset = Dataset(SAMPLE, ATTRIBUTES, source="sample.csv")
    # the sample holds (20, M) twice; a population with it once is not the population it was drawn from
    thin = _rows({("20", "M"): 1, ("25", "F"): 1, ("35", "F"): 2})
    with pytest.raises(ConfigError, match=r"sample.csv holds 2 records with \(age '20', sex 'M'\) but pop.csv only 1"):
        PopulationKMap(3, thin, name="pop.csv").validate(dataset)
    with pytest.raises(ConfigError, match="pop.csv has no column 'sex'"):
        PopulationKMap(3, POPULATION[["age"]], name="pop.csv").validate(dataset)
    with pytest.raises(ConfigError, match="'k' parameter must be an int >= 2"):
        PopulationKMap(1, POPULATION)
    with pytest.raises(ConfigError, match="min = 0.6 is above max = 0.4"):
        DeltaPresence(0.6, 0.4, POPULATION)
    with pytest.raises(ConfigError, match="must be a table"):
        PopulationKMap(3, "population.csv")  # type: ignore[arg-type]
    # methods that do not form full-domain classes do not enforce them
    with pytest.raises(ConfigError, match="cannot enforce 3-map in the population table"):
        Anonymizer(ATTRIBUTES, Requirements([PopulationKMap(3, POPULATION)]), method="mondrian").fit(SAMPLE)


def _files(tmp_path: Path, privacy: str, output: str = "released.csv") -> Path:
    SAMPLE.to_csv(tmp_path / "sample.csv", index=False)
    POPULATION.to_csv(tmp_path / "population.csv", index=False)
    for name, h in (("age", AGE), ("sex", SEX)):
        (tmp_path / f"{name}.csv").write_text("\n".join(";".join(h.labels[level][h.maps[level][leaf]]
                                                                 for level in range(h.n_levels))
                                                        for leaf in range(h.n_leaves)) + "\n")
    config = tmp_path / "config.yaml"
    config.write_text(f"""\
input: {{path: sample.csv}}
attributes:
  age: {{role: quasi, hierarchy: age.csv}}
  sex: {{role: quasi, hierarchy: sex.csv}}
privacy: {privacy}
method: {{name: optimal}}
output: {{path: {output}}}
""")
    return config


def test_the_config_keys_build_the_models(tmp_path: Path) -> None:
    config = load_config(_files(tmp_path, "{k_map: {k: 3, population: population.csv}, max_suppression: 0.2}"))
    (model,) = config.requirements.models
    assert isinstance(model, PopulationKMap) and model.k == 3
    assert model.population_name == str(tmp_path / "population.csv")  # relative to the config's folder
    assert config.input_files()[f"population table of {model.describe()}"] == tmp_path / "population.csv"
    presence = requirements_from_config({"delta_presence": {"min": 0.1, "max": 0.5, "population": "p.csv"}})
    assert isinstance(presence.models[0], DeltaPresence)
    estimated = requirements_from_config({"k_map": {"k": 3, "population_size": 100}})
    assert isinstance(estimated.models[0], KMap)
    with pytest.raises(ConfigError, match="drop population_size"):
        requirements_from_config({"k_map": {"k": 3, "population": "p.csv", "population_size": 100}})
    with pytest.raises(ConfigError, match="privacy.delta_presence.population must be the path"):
        requirements_from_config({"delta_presence": {"min": 0.1, "max": 0.5, "population": 3}})


def test_the_command_releases_and_never_writes_over_the_population(tmp_path: Path) -> None:
    config = _files(tmp_path, "{delta_presence: {min: 0.4, max: 0.6, population: population.csv}}")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verified"] is True and summary["levels"] == {"age": 1, "sex": 0}
    released = pd.read_csv(tmp_path / "released.csv", dtype=str)
    assert sorted(released["age"]) == ["20-29", "20-29", "20-29", "30-39", "30-39"]
    assert summary["provenance"]["requirements"] == [{"model": "DeltaPresence", "min": 0.4, "max": 0.6,
                                                      "population": str(tmp_path / "population.csv"),
                                                      "population_records": 12}]
    before = (tmp_path / "population.csv").read_bytes()
    clash = _files(tmp_path, "{delta_presence: {min: 0.4, max: 0.6, population: population.csv}}",
                   output="population.csv")
    result = CliRunner().invoke(main, ["anonymize", str(clash)])
    assert result.exit_code == 2 and "population" in result.output
    assert (tmp_path / "population.csv").read_bytes() == before


def test_anonset_check_judges_a_release_against_the_population(tmp_path: Path) -> None:
    config = _files(tmp_path, "{delta_presence: {min: 0.4, max: 0.6, population: population.csv}}")
    assert CliRunner().invoke(main, ["anonymize", str(config)]).exit_code == 0
    presence = ["-k", "1", "--population", str(tmp_path / "population.csv"), "--delta-presence", "0.4,0.6"]
    hierarchies = ["--quasi-hierarchy", f"age={tmp_path / 'age.csv'}", "--quasi-hierarchy",
                   f"sex={tmp_path / 'sex.csv'}"]

    def check(data: str, *args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, ["check", str(tmp_path / data), "--quasi", "age,sex", *args])
        return result.exit_code, result.output

    # released at (1, 0): 2 of 4, 1 of 2 and 2 of 5 people, within [0.4, 0.6]
    code, output = check("released.csv", *presence, *hierarchies)
    assert code == 0 and "satisfied: 1-anonymity, (0.4, 0.6)-presence in" in output, output
    # 4-map too: (20-29, F) matches 2 people
    code, output = check("released.csv", *presence, *hierarchies, "--k-map", "4")
    assert code == 1 and "class(es) with 1 records violate 4-map in" in output, output
    # the input itself, one level lower: (20, M) holds 2 of the 3 people it matches (no hierarchy needed)
    code, output = check("sample.csv", *presence)
    assert code == 1 and "presence" in output, output
    # without the hierarchies a generalized label matches nobody: said as a violation, never passed
    code, output = check("released.csv", *presence)
    assert code == 1, output
    code, output = check("released.csv", "-k", "1", "--delta-presence", "0.4,0.6")
    assert code == 2 and "add --population FILE" in output
