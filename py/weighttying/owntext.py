"""Your own text: the page's toy, tied and untied, trained on next-character prediction of any text.

    ids      = the text as token ids: one per character, the rarest beyond the cap sharing "other"
    train    = the first 90 % of ids, held-out the last 10 % (characters training never saw -> "other")
    C        = pair counts (V, V): C[a, b] = how often b follows a
    loss(C)  = -sum(C * log softmax(logits of every token)) / sum(C)   exact, in bits per character

The toy reads one character and predicts the next, so its loss on any part of the text is a function
of that part's pair counts alone: every curve point is exact, one forward pass over the V tokens.
The text's own bigram entropy H(next | current) is therefore the best any such model can do on the
text it was counted on; the unigram entropy H(c) is what a model ignoring the character read gets.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from importlib import resources

import numpy as np

from . import model, recipes, repeat, savings, train

CAP = 96              # the default vocabulary cap
SPLIT = 0.9           # the share of the text trained on; the rest is held out
MIN_CHARS = 200       # fewer characters leave nothing to learn from or to evaluate on
MAX_BYTES = 2_000_000  # 2 MB of UTF-8: tokenising more would keep the reader waiting for nothing
OTHER = "\ufffd"      # how the merged "other" token is written in a sample
LN2 = math.log(2)
BATCH = recipes.BASE.batch


@dataclass(frozen=True)
class Sample:
    """A shipped text: its file under texts/, what it is, where it comes from, and a prompt that suits it."""
    file: str
    title: str
    origin: str
    prompt: str


SAMPLES = {  # texts/ORIGINS.md says more of each origin
    "prose": Sample("alice.txt", "Alice's Adventures in Wonderland, chapters I to III",
                    "Lewis Carroll, 1865, as in Project Gutenberg; public domain", "Alice "),
    "code": Sample("code.txt", "model.py, this page's toy model in Python", "written for this project", "def "),
    "song": Sample("carol.txt", "The Twelve Days of Christmas, every verse cumulative",
                   "a traditional English carol, first printed 1780; public domain", "On the "),
}


class TextError(ValueError):
    """A text the section cannot train on; the message is the reader's."""


def shipped(name: str) -> str:
    """The shipped sample `name` (a key of SAMPLES), as text."""
    return resources.files(__package__).joinpath("texts", SAMPLES[name].file).read_text(encoding="utf-8")


def read(raw: str | bytes) -> str:
    """The text of a paste (str) or a file (bytes), line endings as \\n; TextError naming what is wrong."""
    size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
    if size > MAX_BYTES:
        raise TextError(f"The text is {size / 1e6:.1f} MB; the limit is {MAX_BYTES / 1e6:g} MB. Use a shorter part of it.")
    if isinstance(raw, (bytes, bytearray)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as err:
            raise TextError(f"This file is not UTF-8 text (byte {err.start} cannot be read as UTF-8). "
                            "Save it as UTF-8 plain text (.txt) and try again.") from None
    text = raw.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    if not text.strip():
        raise TextError("The text is empty: paste a text or choose a file.")
    if len(text) < MIN_CHARS:
        raise TextError(f"The text has {len(text)} characters; at least {MIN_CHARS} are needed, so that the last 10 % "
                        "held out for testing has something in it.")
    if len(set(text)) < 2:
        raise TextError(f"The text is one character ({text[0]!r}) repeated: there is nothing to predict. "
                        "Use a text with at least two different characters.")
    return text


@dataclass(frozen=True)
class Vocab:
    """The tokens: `chars` (most frequent in training first), then "other" when `merged` or `unseen` is not empty."""
    chars: tuple[str, ...]
    merged: tuple[str, ...]   # training characters beyond the cap, sharing "other"
    unseen: tuple[str, ...]   # held-out characters training never saw, read as "other"

    @property
    def other(self) -> bool:
        return bool(self.merged or self.unseen)

    @property
    def V(self) -> int:
        return len(self.chars) + self.other

    def ids(self, text: str) -> np.ndarray:
        """Token ids of text (len(text),); a character outside `chars` is "other" (id V - 1)."""
        index = {c: i for i, c in enumerate(self.chars)}
        return np.array([index.get(c, len(self.chars)) for c in text], dtype=np.intp)

    def token(self, i: int) -> str:
        """Token i as text: its character, or OTHER."""
        return self.chars[i] if i < len(self.chars) else OTHER


def split(text: str, share: float = SPLIT) -> tuple[str, str]:
    """(training part, held-out part): the first `share` of the characters, the rest."""
    cut = int(len(text) * share)
    return text[:cut], text[cut:]


def vocabulary(text: str, cap: int = CAP) -> Vocab:
    """The vocabulary of the training part of text: its characters by frequency (ties by code point), the
    rarest beyond the cap merged; one slot of the cap goes to "other" whenever anything needs it."""
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 2:
        raise TextError(f"The vocabulary cap must be a whole number of at least 2, got {cap!r}.")
    seen, held = split(text)
    ranked = [c for c, _ in sorted(Counter(seen).items(), key=lambda kv: (-kv[1], kv[0]))]
    unseen = tuple(sorted(set(held) - set(seen)))
    keep = cap - 1 if (len(ranked) > cap or unseen) else cap
    return Vocab(tuple(ranked[:keep]), tuple(ranked[keep:]), unseen)


def pair_counts(ids: np.ndarray, V: int) -> np.ndarray:
    """C (V, V): C[a, b] = positions where token b follows token a in ids."""
    return np.bincount(ids[:-1] * V + ids[1:], minlength=V * V).reshape(V, V).astype(float)


def entropy_bits(counts: np.ndarray) -> float:
    """Entropy in bits of the distribution proportional to counts (any shape; 0 log 0 = 0)."""
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def baselines(ids: np.ndarray, V: int) -> dict:
    """The whole text's exact entropies in bits per character: unigram H(c) and bigram H(next | current)
    from its own pair counts (H(pair) - H(current), the counts' chain rule)."""
    C = pair_counts(ids, V)
    return {"unigram": entropy_bits(np.bincount(ids, minlength=V).astype(float)),
            "bigram": entropy_bits(C) - entropy_bits(C.sum(1))}


def repeat_rate(text: str) -> float:
    """The share of positions whose next character equals the current one: a float in [0, 1]."""
    return sum(a == b for a, b in zip(text, text[1:])) / (len(text) - 1)


@dataclass(frozen=True)
class Prepared:
    """A text ready to train on: its vocabulary, the training pairs (x, y) and both parts' pair counts."""
    vocab: Vocab
    x: np.ndarray        # current tokens of the training pairs (N,)
    y: np.ndarray        # next tokens (N,)
    C_train: np.ndarray  # (V, V)
    C_held: np.ndarray   # (V, V)
    facts: dict          # what the section reports about the text itself


def prepare(text: str, cap: int = CAP) -> Prepared:
    """Tokenise, split and count a text that `read` accepted; facts = {chars, V, train/held-out sizes,
    unseen positions, baselines, repeat rate}."""
    vocab = vocabulary(text, cap)
    ids = vocab.ids(text)
    cut = len(split(text)[0])
    tr, ho = ids[:cut], ids[cut:]
    unseen = sum(c in set(vocab.unseen) for c in text[cut:])
    facts = {"chars": len(text), "V": vocab.V, "train_chars": cut, "held_chars": len(text) - cut,
             "unseen_positions": unseen, "repeat_rate": repeat_rate(text), **baselines(ids, vocab.V)}
    return Prepared(vocab, tr[:-1], tr[1:], pair_counts(tr, vocab.V), pair_counts(ho, vocab.V), facts)


def exact_loss(params: dict, cfg: model.Config, C: np.ndarray) -> float:
    """The model's mean loss in bits per character over the pairs counted in C (V, V)."""
    logq = model.log_softmax(model.forward(params, cfg, np.arange(cfg.V))["logits"])
    return float(-(C * logq).sum() / C.sum() / LN2)


def share_saved(V: int, d: int, hidden: int = model.Config.hidden) -> float:
    """V*d over the untied toy's parameter count: the share of parameters tying saves."""
    untied = savings.toy_params(V, d, hidden, tied=False)
    return (untied - savings.toy_params(V, d, hidden, tied=True)) / untied


def probabilities(params: dict, cfg: model.Config) -> np.ndarray:
    """Q (V, V): Q[a] = the model's next-token distribution after reading token a."""
    logq = model.log_softmax(model.forward(params, cfg, np.arange(cfg.V))["logits"])
    return np.exp(logq)


def continuations(Q: np.ndarray, vocab: Vocab, length: int = 200, seed: int = 0) -> list[str]:
    """For every start token a, `length` characters sampled from Q after reading a, all from one
    default_rng(seed): V strings (the same Q and seed give the same strings); none when Q is not finite
    (a diverged model has nothing to say)."""
    if not np.isfinite(Q).all():
        return []
    u = np.random.default_rng(seed).random((length, len(Q)))
    cdf = np.cumsum(Q, axis=1)
    cur, out = np.arange(len(Q)), []
    for row in u:
        cur = np.minimum((row[:, None] > cdf[cur]).sum(1), len(Q) - 1)
        out.append(cur)
    return ["".join(vocab.token(int(t)) for t in col) for col in np.array(out).T]


def start_token(prompt: str, vocab: Vocab) -> int:
    """The token a sample starts from: the prompt's last character's (the toy reads one character); a character
    the vocabulary lacks is "other" when there is one; the most frequent character when the prompt is empty or
    there is no "other"."""
    t = int(vocab.ids(prompt[-1:])[0]) if prompt else 0
    return t if t < vocab.V else 0


@dataclass(frozen=True)
class Setup:
    """One run's settings: the toy's width d, res, sigma, and SGD's steps, lr and seed (batches and init)."""
    d: int = 16
    res: float = 1.0
    sigma: float = 0.25
    steps: int = 1500
    lr: float = 0.5
    seed: int = 0
    batch: int = BATCH

    @classmethod
    def of(cls, st) -> "Setup":
        """The run's settings of a section state (state.Owntext: its d, res, sigma, steps, lr and seed)."""
        return cls(d=st.d, res=st.res, sigma=st.sigma, steps=st.steps, lr=st.lr, seed=st.seed)


def config(prep: Prepared, s: Setup, tied: bool) -> model.Config:
    """The toy on this text's vocabulary."""
    return model.Config(V=prep.vocab.V, d=s.d, tied=tied, res=s.res, sigma=s.sigma, seed=s.seed)


def evaluated(prep: Prepared, params: dict, cfg: model.Config, step: int) -> dict:
    """A curve point: {step, train, heldout} exact losses in bits per character."""
    return {"step": step, "train": exact_loss(params, cfg, prep.C_train), "heldout": exact_loss(params, cfg, prep.C_held)}


def iter_model(prep: Prepared, s: Setup, tied: bool, chunk: int = 25, every: int = 50):
    """Train one model (tied or untied) with the page's SGD on random training pairs (default_rng(seed)):
    yield {model, step, loss (mean batch loss of the chunk, nats; at step 0 the exact training loss)} every chunk, with "point" (a curve point)
    at step 0, every `every` steps and at the end, and at the end "final" = {rank_init, rank_after,
    params}. Tied and untied of one seed see the same batches; each run is independent of the other."""
    name, cfg = ("tied" if tied else "untied"), config(prep, s, tied)
    params = model.init_params(cfg)
    rank_init = float(repeat.self_ranks(params, cfg).mean())
    first = evaluated(prep, params, cfg, 0)
    yield {"model": name, "step": 0, "loss": first["train"] * LN2, "point": first}  # no batch yet: the exact loss
    rng, losses = np.random.default_rng(s.seed), []
    for step in range(1, s.steps + 1):
        pos = rng.integers(0, len(prep.x), s.batch)
        loss, grads = model.loss_and_grads(params, cfg, prep.x[pos], prep.y[pos])
        params = train.sgd(params, grads, s.lr)
        losses.append(loss)
        if step % chunk and step % every and step != s.steps:
            continue
        out = {"model": name, "step": step, "loss": float(np.mean(losses))}
        losses = []
        if step % every == 0 or step == s.steps:
            out["point"] = evaluated(prep, params, cfg, step)
        if step == s.steps:
            out["final"] = {"rank_init": rank_init, "rank_after": float(repeat.self_ranks(params, cfg).mean()),
                            "params": params}
        yield out


def finish(prep: Prepared, s: Setup, tied: bool, final: dict) -> dict:
    """A trained model's summary: its ranks and every start token's 200-character sample (plain data)."""
    Q = probabilities(final["params"], config(prep, s, tied))
    return {"rank_init": final["rank_init"], "rank_after": final["rank_after"],
            "samples": continuations(Q, prep.vocab, seed=s.seed)}


def summary(prep: Prepared, s: Setup) -> dict:
    """What the section shows about the text itself before any training: facts, vocabulary, share saved."""
    v = prep.vocab
    return {**prep.facts, "chars_list": list(v.chars), "merged": list(v.merged), "unseen": list(v.unseen),
            "other": v.other, "share": share_saved(v.V, s.d), "chance": (v.V + 1) / 2}


def iter_runs(prep: Prepared, s: Setup, models=("tied", "untied"), chunk: int = 25, every: int = 50):
    """Tied and untied (or the `models` given) trained in turn, chunk by chunk: every iter_model dict (with
    "total" = all models' steps and "step" = steps done over all of them); after each model's last chunk one
    dict with "run" = {model, curve, rank_init, rank_after, samples}. Interleaving changes no number."""
    runs = {m: iter_model(prep, s, m == "tied", chunk, every) for m in models}
    curves = {m: [] for m in models}
    done = {m: 0 for m in models}
    total = len(models) * s.steps
    while runs:
        for m in list(runs):
            p = next(runs[m], None)
            if p is None:
                del runs[m]
                continue
            done[m] = p["step"]
            if "point" in p:
                curves[m].append(p["point"])
            yield {**p, "step": sum(done.values()), "total": total}
            if "final" in p:
                yield {"model": m, "step": sum(done.values()), "total": total,
                       "run": {"model": m, "curve": curves[m], **finish(prep, s, m == "tied", p["final"])}}


def run(text: str, cap: int = CAP, s: Setup = Setup()) -> dict:
    """The whole experiment at once: summary(...) and {"models": {name: run}} (plain data)."""
    prep = prepare(text, cap)
    models = {p["run"]["model"]: p["run"] for p in iter_runs(prep, s) if "run" in p}
    return {**summary(prep, s), "models": models}
