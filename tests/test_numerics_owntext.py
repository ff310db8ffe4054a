"""The own-text numerics: the baselines equal hand-computed entropies on tiny texts, the tokeniser keeps the
most frequent characters up to the cap and merges the rest, the 90/10 split maps unseen held-out characters to
"other" and says so, training equals the same SGD loop run directly, tied and untied run apart, samples are
seeded, and every bad input is a TextError with the reader's message."""
import math

import numpy as np
import pytest

from weighttying import model, owntext, repeat, savings, train

TEXT = "abracadabra! " * 20  # 260 characters, 7 distinct


def test_baselines_equal_hand_computed_entropies():
    # "aab" repeated: unigram p(a) = 2/3, p(b) = 1/3; pairs aa, ab, ba in equal thirds (the cycle a a b)
    ids = np.array([0, 0, 1] * 4 + [0])
    b = owntext.baselines(ids, 2)
    p = np.array([9, 4]) / 13
    assert b["unigram"] == pytest.approx(-(p * np.log2(p)).sum(), abs=1e-12)
    # pairs: aa 4, ab 4, ba 4: after a, a or b with 1/2 each (1 bit); after b always a (0 bits); a is current 8/12
    assert b["bigram"] == pytest.approx(8 / 12 * 1.0, abs=1e-12)
    # a text that alternates deterministically has no uncertainty left given the current character
    assert owntext.baselines(np.array([0, 1] * 50), 2) == pytest.approx({"unigram": 1.0, "bigram": 0.0}, abs=1e-12)


def test_repeat_rate_counts_next_equal_current():
    assert owntext.repeat_rate("aab") == 0.5 and owntext.repeat_rate("abab") == 0.0
    assert owntext.repeat_rate("aaaa") == 1.0


def test_tokeniser_by_frequency_and_the_cap_merges_the_rarest():
    text = "a" * 150 + "b" * 60 + "c" * 30 + "d" * 20 + "e" * 10 + "a" * 30
    v = owntext.vocabulary(text, cap=96)
    assert v.chars == ("a", "b", "c", "d", "e") and not v.merged and not v.other and v.V == 5
    capped = owntext.vocabulary(text, cap=3)
    # two characters keep their own tokens, the third slot is "other" for everything rarer
    assert capped.chars == ("a", "b") and capped.merged == ("c", "d", "e") and capped.V == 3
    assert capped.ids("abcde").tolist() == [0, 1, 2, 2, 2]
    assert owntext.vocabulary(text, cap=5).V == 5 and owntext.vocabulary(text, cap=4).merged == ("d", "e")
    with pytest.raises(owntext.TextError, match="at least 2"):
        owntext.vocabulary(text, cap=1)


def test_split_is_90_10_and_unseen_held_out_characters_read_as_other():
    text = "ab" * 135 + "xyz" * 10  # 300 characters: x, y, z only in the last 30
    train_part, held = owntext.split(text)
    assert (len(train_part), len(held)) == (270, 30) and train_part + held == text
    prep = owntext.prepare(text)
    v = prep.vocab
    assert v.chars == ("a", "b") and v.unseen == ("x", "y", "z") and v.other and v.V == 3
    assert prep.facts["unseen_positions"] == 30 and prep.facts["held_chars"] == 30
    assert prep.C_held[2, 2] == 29 and prep.C_train.sum() == 269 and prep.C_held.sum() == 29
    assert len(prep.x) == len(prep.y) == 269 and (prep.y[:-1] == prep.x[1:]).all()


def test_exact_loss_is_the_mean_cross_entropy_of_every_pair_in_bits():
    prep = owntext.prepare(TEXT)
    cfg = model.Config(V=prep.vocab.V, d=8, seed=2)
    params = model.init_params(cfg)
    ids = prep.vocab.ids(owntext.split(TEXT)[0])
    loss, _ = model.cross_entropy(model.forward(params, cfg, ids[:-1])["logits"], ids[1:])
    assert owntext.exact_loss(params, cfg, prep.C_train) == pytest.approx(loss / math.log(2), rel=1e-12)


def test_training_equals_the_same_loop_run_directly():
    prep, s = owntext.prepare(TEXT), owntext.Setup(d=8, steps=40, lr=0.5, seed=4)
    points = list(owntext.iter_model(prep, s, tied=True, chunk=10, every=20))
    cfg = model.Config(V=prep.vocab.V, d=8, tied=True, seed=4)
    params, rng = model.init_params(cfg), np.random.default_rng(4)
    for _ in range(40):
        pos = rng.integers(0, len(prep.x), s.batch)
        params = train.sgd(params, model.loss_and_grads(params, cfg, prep.x[pos], prep.y[pos])[1], 0.5)
    final = points[-1]["final"]
    assert all(np.array_equal(final["params"][k], params[k]) for k in params)
    assert final["rank_after"] == float(repeat.self_ranks(params, cfg).mean())
    assert [p["step"] for p in points] == [0, 10, 20, 30, 40] and [p["step"] for p in points if "point" in p] == [0, 20, 40]
    assert points[-1]["point"]["heldout"] == owntext.exact_loss(params, cfg, prep.C_held)
    assert points[-1]["point"]["train"] < points[0]["point"]["train"]  # it learned something


def test_tied_and_untied_run_apart_and_interleaving_changes_nothing():
    prep, s = owntext.prepare(TEXT), owntext.Setup(d=8, steps=30, seed=1)
    both = {p["run"]["model"]: p["run"] for p in owntext.iter_runs(prep, s, chunk=10, every=10) if "run" in p}
    alone = [p["run"] for p in owntext.iter_runs(prep, s, models=("untied",), chunk=10, every=10) if "run" in p]
    assert alone == [both["untied"]] and both["tied"] != both["untied"]
    steps = [p["step"] for p in owntext.iter_runs(prep, s, chunk=10, every=10)]
    assert steps[-1] == 60 and steps == sorted(steps)  # progress over both models


def test_ranks_share_and_samples():
    r = owntext.run(TEXT, s=owntext.Setup(d=8, steps=60, seed=0))
    V = r["V"]
    assert r["chance"] == (V + 1) / 2 and r["models"]["tied"]["rank_init"] < r["models"]["untied"]["rank_init"]
    untied, tied = (savings.toy_params(V, 8, tied=t) for t in (False, True))
    assert r["share"] == (untied - tied) / untied == V * 8 / untied
    samples = r["models"]["tied"]["samples"]
    assert len(samples) == V and {len(x) for x in samples} == {200} and set("".join(samples)) <= set(TEXT)
    assert owntext.run(TEXT, s=owntext.Setup(d=8, steps=60, seed=0)) == r  # seeded: the same settings, the same text
    assert owntext.run(TEXT, s=owntext.Setup(d=8, steps=60, seed=1))["models"]["tied"]["samples"] != samples
    assert owntext.start_token("x!", owntext.vocabulary(TEXT)) == owntext.vocabulary(TEXT).chars.index("!")
    assert "\u00e9" not in TEXT
    assert owntext.start_token("caf\u00e9", owntext.vocabulary(TEXT)) == 0  # no "other" token: the most frequent
    assert owntext.start_token("caf\u00e9", owntext.vocabulary(TEXT, cap=4)) == 3  # beyond the cap it is "other"


def test_a_diverged_model_writes_nothing():
    vocab = owntext.vocabulary(TEXT)
    assert owntext.continuations(np.full((vocab.V, vocab.V), np.nan), vocab) == []


def test_shipped_samples_are_small_distinct_and_named():
    texts = {name: owntext.read(owntext.shipped(name)) for name in owntext.SAMPLES}
    assert all(len(t.encode()) <= 50_000 for t in texts.values())
    assert texts["prose"].startswith("CHAPTER I. Down the Rabbit-Hole") and "def forward" in texts["code"]
    assert texts["song"].count("partridge in a pear tree") == 12
    rates = {name: owntext.prepare(t).facts for name, t in texts.items()}
    assert rates["song"]["bigram"] < rates["prose"]["bigram"]  # the refrain is the most predictable
    assert all(owntext.SAMPLES[n].origin for n in texts)


@pytest.mark.parametrize("raw, message", [
    ("", "empty"),
    ("   \n\t  ", "empty"),
    ("short text " * 10, "at least 200"),
    ("a" * 500, "one character"),
    (b"\xff\xfe" + "hello".encode("utf-16-le") * 100, "not UTF-8"),
    ("é" * 1_000_001, "limit is 2 MB"),
    (b"x" * 2_000_001, "limit is 2 MB"),
])
def test_bad_inputs_raise_a_typed_error_with_the_readers_message(raw, message):
    with pytest.raises(owntext.TextError, match=message) as err:
        owntext.read(raw)
    assert isinstance(err.value, ValueError) and "Traceback" not in str(err.value)


def test_read_accepts_utf8_bytes_and_normalises_line_ends():
    assert owntext.read(("line one\r\n" * 30).encode()) == "line one\n" * 30
    assert owntext.read("\ufeff" + "ok, " * 60) == "ok, " * 60
