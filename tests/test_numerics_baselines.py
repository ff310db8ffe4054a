"""The numbers behind the prose's claims: the logit spread behind the repeat bias, CKA's baselines, and
how many searched recipes reproduce the post, each from the package's own functions."""
import re

import numpy as np
import pytest

from weighttying import measure, model, paper, recipes, repeat


def test_the_self_logit_stands_out_by_about_its_own_spread_not_four_crowd_deviations():
    s = repeat.init_spread(seeds=range(20))
    cfg = model.Config()
    # |E[t]|^2 averages d sigma^2, and MLP(x) . E[t] averages 0 over the init: the self-logit's mean is d sigma^2
    assert s["self_mean"] == pytest.approx(cfg.d * cfg.sigma ** 2, abs=4 * s["self_sd"] / np.sqrt(20 * cfg.V))
    assert abs(s["other_mean"]) < 0.05 * s["other_sd"]  # products of independent numbers: centred on 0
    # the others spread wider than x . E[j] alone (sigma^2 sqrt(d)): h also carries MLP(x)
    assert s["other_sd"] > 1.15 * cfg.sigma ** 2 * np.sqrt(cfg.d)
    # so the gap is about three of the crowd's deviations, and the self-logit's own spread overlaps the crowd
    assert 2 < s["self_mean"] / s["other_sd"] < 4 and s["self_sd"] > s["other_sd"]
    assert np.mean([repeat.rank_at_init(model.Config(seed=k)) for k in range(20)]) > 1.3


def test_the_spread_is_the_logits_the_ranks_come_from():
    cfg = model.Config(V=8, d=4, seed=3)
    logits = model.forward(model.init_params(cfg), cfg, np.arange(8))["logits"]
    s = repeat.init_spread(V=8, d=4, seeds=[3])
    assert s["self_mean"] == pytest.approx(np.diagonal(logits).mean())
    assert s["other_sd"] == pytest.approx(logits[~np.eye(8, dtype=bool)].std())


def test_cka_baselines_are_chance_for_u_and_one_for_the_shared_initial_e():
    c = paper.init_cka(range(3))
    assert c["with_E"] == pytest.approx(1.0, abs=1e-12)  # tied and untied of a seed draw the same E first
    rng = np.random.default_rng(7)
    chance = np.mean([paper.linear_cka(rng.standard_normal((64, 16)), rng.standard_normal((64, 16)))
                      for _ in range(200)])
    assert abs(c["with_U"] - chance) < 0.05 < chance < 0.5


RECORD = """# a record
tasks: rank=2 beta=8 lr=1 batch=64 steps=600 | 2/6 within, cost 60.3 | aligned.tied=4.48
tasks: rank=2 beta=32 lr=0.5 batch=32 steps=1200 | 6/6 within, cost 1.1 | aligned.tied=0.39
repeat: rank=8 beta=32 lr=0.5 batch=64 steps=600 | 2/2 within, cost 0.3 | trained.tied=0.40

winner of 2: tasks: rank=2 beta=32 lr=0.5 batch=32 steps=1200 | 6/6 within, cost 1.1 | aligned.tied=0.39
"""


def test_tally_counts_one_experiments_candidates_and_not_the_winner_line():
    assert recipes.tally(RECORD, "tasks") == {"searched": 2, "total": 6, "all_within": 1}
    assert recipes.tally(RECORD, "repeat") == {"searched": 1, "total": 2, "all_within": 1}
    with pytest.raises(ValueError, match="no candidate of 'pathdrop'"):
        recipes.tally(RECORD, "pathdrop")


def test_the_packages_record_agrees_with_its_own_winner_lines():
    text = recipes.RECORD.read_text()
    for experiment in measure.TRAINED:  # the experiments the search calibrates
        t = recipes.searched(experiment)
        assert t["searched"] == int(re.search(rf"^winner of (\d+): {experiment}:", text, re.M)[1])
        assert 1 <= t["all_within"] <= t["searched"]
