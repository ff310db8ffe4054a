"""The own-text section's output: the toy, tied and untied, trained on a text's characters; held-out bits per
character beside the text's own unigram and bigram entropies, the just-read character's rank, the share tying
saves and what each model writes. No Panel.

`results(st)` is every shipped sample's run at st's settings ({sample: entry}), a Run's work of seconds: the build
ships them for the defaults, so choosing a sample answers at once. A pasted or dropped text is "yours" (`st.text`,
`st.file`: controls of kinds that never enter a link or an export): the live section tokenises and trains it
(iter_runs) and files it under "yours". The prompt (`st.prompt`) only picks which of the ready samples is shown
(the toy reads one character), never a run. A Run splits into its two models (split, iter_part, merge), which
the page's pool of numerics workers trains side by side.
"""
from __future__ import annotations

import functools

from ..markup import escape
from .. import owntext
from .. import pool
from .. import render
from .. import state
from .kit import BUILT, Num, cell, grid, log, note, source, table

YOURS = state.BY_KEY["owntext.sample"].own  # the sample a pasted or chosen text is filed under (state.Owntext)
CHUNK = 25  # steps per model between yields: ~3-5 ms a step in Pyodide, so a yield stays near 100 ms
EVERY = 50  # steps between curve points
SLOTS = ("status", "curves", "table", "ranks", "sample_tied", "sample_untied", "vocab")
# A change of a RUN_KEYS field leaves the trained slots pending until the reader presses Run (app.kit.RunSection);
# `sample` is not one: every shipped sample's run is in the build's results, and "yours" needs a text.
RUN_KEYS = ("cap", "d", "res", "sigma", "steps", "lr", "seed")
_LR = state.BY_KEY["owntext.lr"]
PLAYBACK = {"sample": grid("owntext", "sample"), "cap": grid("owntext", "cap", (16, 32, 64)),
            "d": grid("owntext", "d", (8, 32)), "steps": grid("owntext", "steps", (500, 5000)),
            "lr": grid("owntext", "lr", log(_LR.lo, _LR.hi, 1))}
DEPENDS = ({name: ("sample", *RUN_KEYS) for name in SLOTS} | {"vocab": ("sample", "cap")}
           | {name: ("sample", *RUN_KEYS, "prompt") for name in ("sample_tied", "sample_untied")})
PAIRS = (("sample_tied", "sample_untied"),)
MODELS = ("tied", "untied")
SHOWN = {" ": "␣", "\n": "↵", "\t": "⇥", owntext.OTHER: "other"}  # characters a list would not show


def setup(st: state.Owntext) -> owntext.Setup:
    """The run's settings of st."""
    return owntext.Setup.of(st)


@functools.lru_cache(maxsize=32)
def facts(sample: str, cap: int, d: int) -> dict:
    """owntext.summary of a shipped sample at this cap and width (cheap: no training; memoised for playback)."""
    return owntext.summary(owntext.prepare(owntext.read(owntext.shipped(sample)), cap), owntext.Setup(d=d))


def entry_run(text: str, st: state.Owntext) -> dict:
    """One text's entry: its summary and every model's run, {"models": {name: run}} (plain data)."""
    return owntext.run(text, st.cap, setup(st))


def results(st: state.Owntext) -> dict:
    """Every shipped sample's entry at st's settings: {sample: entry} (a pasted text's comes live only)."""
    return {name: entry_run(owntext.shipped(name), st) for name in owntext.SAMPLES}


def fresh_entry(prep: owntext.Prepared, st: state.Owntext) -> dict:
    """An entry before any training: the text's summary and empty curves."""
    return {**owntext.summary(prep, setup(st)), "models": {m: {"curve": []} for m in MODELS}}


def yours(st: state.Owntext) -> str:
    """The reader's own text: a file's when one was read after the last paste (the live section clears `file` on a
    paste), else the paste."""
    return st.file or st.text


def text_of(st: state.Owntext) -> str:
    """The text st trains on: its shipped sample's, or the reader's (owntext.read checks it: TextError)."""
    return owntext.read(yours(st) if st.sample == YOURS else owntext.shipped(st.sample))


def iter_runs(st: state.Owntext, chunk: int = CHUNK, models: tuple[str, ...] = MODELS):
    """The run of st's sample (the reader's text is filed as "yours"): first {"entry": its summary, "sample"},
    then owntext.iter_runs's progress dicts for `models` (tokenising is inside the run, so it never blocks a page)."""
    prep = owntext.prepare(text_of(st), st.cap)
    yield {"step": 0, "total": len(models) * st.steps, "loss": 0.0, "sample": st.sample, "entry": fresh_entry(prep, st)}
    for p in owntext.iter_runs(prep, setup(st), models, chunk, EVERY):
        yield {**p, "sample": st.sample}


steps = iter_runs  # the Run (app.kit.RunSection): the tied and the untied model on st's sample


def total(st: state.Owntext) -> int:
    """The Run's steps: both models' SGD steps."""
    return len(MODELS) * st.steps


def collect(results: dict, point: dict) -> bool:
    """File a streamed point into results (in place): a new entry, a curve point or a finished run; True
    when what the slots show changed (a bare progress dict, without "sample", changes nothing)."""
    if "sample" not in point:
        return False
    if "entry" in point:
        results[point["sample"]] = point["entry"]
        return True
    models = results[point["sample"]]["models"]
    if "run" in point:
        models[point["model"]] = point["run"]
        return True
    if "point" in point:
        models[point["model"]]["curve"].append(point["point"])
        return True
    return False


def kept_entries(prebuilt: dict | None, running: str) -> dict:
    """The build's entries a live run keeps (the other shipped samples at the defaults; the one `running` is
    being recomputed), each marked as the build's."""
    return {k: {**e, "origin": BUILT} for k, e in (prebuilt or {}).items() if k in owntext.SAMPLES and k != running}


def shown(c: str) -> str:
    """A character as a list shows it: spaces and line breaks named, "other" spelled out."""
    return SHOWN.get(c, c)


def title(st: state.Owntext) -> str:
    """What the text is, in words."""
    if st.sample == YOURS:
        return "Your text"
    s = owntext.SAMPLES[st.sample]
    return f"{s.title} ({s.origin})"


def status(st: state.Owntext, e: dict | None, results) -> str:
    """Which text, how it was split, and whether it is trained; for "yours" before a text, how to give one."""
    if e is None:
        return note("Your text: paste one into the box or choose a .txt file (UTF-8, at most 2 MB), then press Run. "
                    "It needs the live lab (Python in your browser). The text never leaves your browser: nothing is "
                    "sent anywhere, and neither the address bar nor the downloads record it.", testid="owntext-now")
    unseen = (f" {e['unseen_positions']} held-out characters never occur in training ("
              f"{', '.join(map(shown, e['unseen']))}): the models read them as “other”." if e["unseen"] else "")
    done = all("rank_after" in e["models"][m] for m in MODELS)
    text = (f"{title(st)}: {e['chars']:,} characters, V = {e['V']} tokens; trained on the first {e['train_chars']:,}, "
            f"tested on the last {e['held_chars']:,}.{unseen}")
    if st.sample == YOURS:
        text += " Your text stays in this browser: nothing is sent anywhere, and the address bar does not record it."
    if not any(e["models"][m]["curve"] for m in MODELS):
        text += f" Not trained yet for these settings: Run trains both models here in your browser ({st.steps} steps each)."
    where = e.get("origin") or (results or {}).get("origin")  # an entry the build made, in a live run's results
    return note(text, testid="owntext-now") + (source({"origin": where}, "owntext-source") if done else "")


def curves(e: dict | None) -> str:
    """Training and held-out loss of both models over training (inline SVG) with its text."""
    got = e and any(e["models"][m]["curve"] for m in MODELS)
    if not got:
        return note("Loss curves: not trained yet for these settings.", testid="owntext-curve-text")
    # held-out solid, training dashed (render's third and fourth series), each model in its own colour
    series = {f"{m}, {part}": [p[key] for p in e["models"][m]["curve"]]
              for part, key in (("held-out", "heldout"), ("training", "train")) for m in MODELS}
    longest = max((e["models"][m]["curve"] for m in MODELS), key=len)
    text = "; ".join(f"{m}: held-out {render.num(c[0]['heldout'], 3)} bits per character at step 0, "
                     f"{render.num(c[-1]['heldout'], 3)} at step {c[-1]['step']}"
                     for m in MODELS if (c := e["models"][m]["curve"]))
    return (render.lines(series, f"Bits per character over training (the text's bigram entropy: {render.num(e['bigram'], 3)})",
                    f"training step (a point every {EVERY})", "bits per character", xs=[p["step"] for p in longest],
                    xname="step")
            + note(text + ".", testid="owntext-curve-text"))


def heldout(e: dict, m: str) -> object:
    """A model's held-out bits per character after training, or a note that it has none yet."""
    run = e["models"][m]
    return Num(f"owntext-heldout-{m}", run["curve"][-1]["heldout"]) if "rank_after" in run else "not trained yet"


COLUMNS = ("quantity", "value", "what it means")


def rows(e: dict) -> list[list[object]]:
    """The comparison table's rows: both models' held-out loss, the two baselines, the repeat rate, the share."""
    return [["held-out, tied (bits per character)", heldout(e, "tied"), "the tied model on the last 10 %"],
            ["held-out, untied (bits per character)", heldout(e, "untied"), "the untied model on the last 10 %"],
            ["unigram entropy H(c), whole text", Num("owntext-unigram", e["unigram"]),
             "a model that ignores the character it read"],
            ["bigram entropy H(next | current), whole text", Num("owntext-bigram", e["bigram"]),
             "the best any one-character model can do on the text it was counted on"],
            ["repeat rate: next character = current", Num("owntext-repeat-rate", e["repeat_rate"]),
             "how often this text itself repeats a character"],
            ["share of parameters tying saves", Num("owntext-share", e["share"]), f"V·d over the untied toy, V = {e['V']}"]]


def comparison(st: state.Owntext, e: dict | None) -> str:
    """The table of held-out bits per character against the baselines, with a caption that says the point."""
    if e is None:
        return note("Held-out bits per character: not computed: the live lab has not read a text yet.",
                    testid="owntext-table-none")
    done = all("rank_after" in e["models"][m] for m in MODELS)
    entropies = f"the text's unigram {render.num(e['unigram'], 3)} and bigram {render.num(e['bigram'], 3)} entropies"
    if done:
        heldout = {m: e["models"][m]["curve"][-1]["heldout"] for m in MODELS}
        # Said only when it holds: the held-out tenth can beat the whole text's bigram counts, and a short run can
        # stay above the unigram entropy.
        between = all(e["bigram"] <= h <= e["unigram"] for h in heldout.values())
        point = (f"Held-out, tied {render.num(heldout['tied'], 3)} and untied {render.num(heldout['untied'], 3)} "
                 f"bits per character after {st.steps} steps, {'between' if between else 'against'} {entropies}")
    else:
        point = f"Not trained yet ({st.steps} steps each); the baselines are {entropies}"
    return table(COLUMNS, rows(e), point + f"; tying saves {render.num(100 * e['share'], 3)} % of the parameters",
                 "owntext-table")


RANK_COLUMNS = ("model", "rank at init", "rank after training")


def rank_rows(e: dict) -> list[list[object]]:
    """Mean rank of the just-read character among the V predictions, at init and after, tied vs untied vs chance."""
    out = []
    for m in MODELS:
        run = e["models"][m]
        trained = "rank_after" in run
        out.append([m, Num(f"owntext-rank-{m}-init", run["rank_init"]) if trained else "not trained yet",
                    Num(f"owntext-rank-{m}", run["rank_after"]) if trained else "not trained yet"])
    return out + [["chance", Num("owntext-rank-chance", e["chance"]), Num("owntext-rank-chance-after", e["chance"])]]


def ranks(e: dict | None) -> str:
    """The rank table, its caption the repeat bias against how often the text repeats."""
    if e is None:
        return note("Ranks of the just-read character: not computed: the live lab has not read a text yet.",
                    testid="owntext-ranks-none")
    guess = "mostly guesses wrong" if e["repeat_rate"] < 0.5 else "is right more often than not"
    return table(RANK_COLUMNS, rank_rows(e), f"Mean rank (1 = top, of V = {e['V']}) of the character just read among "
                 f"the predictions for the next one; this text repeats a character at "
                 f"{render.num(100 * e['repeat_rate'], 3)} % of positions, so a model that ranks it high {guess}",
                 "owntext-ranks")


def prompt_of(st: state.Owntext) -> str:
    """The prompt the samples follow: the reader's (st.prompt) or the sample's own."""
    return st.prompt or (owntext.SAMPLES[st.sample].prompt if st.sample in owntext.SAMPLES else "")


def sample_html(st: state.Owntext, e: dict | None, m: str, prompt: str) -> str:
    """What model m writes: 200 characters sampled after the prompt (seeded), or why there are none."""
    run = (e or {}).get("models", {}).get(m, {})
    if "samples" not in run:
        return note(f"{m.capitalize()} model's writing: not trained yet.", testid=f"owntext-sample-{m}")
    if not run["samples"]:
        return note(f"{m.capitalize()} model's writing: none, the model diverged.", testid=f"owntext-sample-{m}")
    vocab = owntext.Vocab(tuple(e["chars_list"]), tuple(e["merged"]), tuple(e["unseen"]))
    start = owntext.start_token(prompt, vocab)
    read = ("the toy reads only the prompt's last character" if vocab.token(start) == prompt[-1:] or not prompt else
            f"the text has no {shown(prompt[-1])!r}: it starts after {shown(vocab.token(start))!r}")
    text = run["samples"][start]
    return (f'<figure class="wt-sample" data-testid="owntext-sample-{m}"><figcaption>{m.capitalize()} model: 200 '
            f"characters after the prompt (seed {st.seed}; {escape(read)})"
            f'</figcaption><pre class="wt-sample-text"><mark>{escape(prompt)}</mark>{escape(text)}</pre></figure>')


def vocab_html(e: dict | None) -> str:
    """The vocabulary, most frequent first, and what shares the "other" token."""
    if e is None:
        return ""
    merged = (f" Merged into “other” (beyond the cap): {' '.join(map(shown, e['merged']))}." if e["merged"] else
              " Nothing merged: every training character has its own token.")
    return (f'<p class="wt-help" data-testid="owntext-vocab">Vocabulary, V = {cell(Num("owntext-V", e["V"]))} '
            f"tokens, most frequent first: {escape(' '.join(map(shown, e['chars_list'])))}"
            f"{' other' if e['other'] else ''}.{escape(merged)}</p>")


def slots(st: state.Owntext, results: dict | None = None) -> dict[str, str]:
    """The section's output for st: the entry of its sample in results (finished or streaming), else the
    text's own numbers with the trained slots pending (a shipped sample) or how to give a text ("yours")."""
    e = (results or {}).get(st.sample)
    if e is None and st.sample in owntext.SAMPLES:
        f = facts(st.sample, st.cap, st.d)
        e = {**f, "models": {m: {"curve": []} for m in MODELS}}
    prompt = prompt_of(st)
    return {"status": status(st, e, results), "curves": curves(e), "table": comparison(st, e), "ranks": ranks(e),
            "sample_tied": sample_html(st, e, "tied", prompt), "sample_untied": sample_html(st, e, "untied", prompt),
            "vocab": vocab_html(e)}


# ---- a Run split across workers (weighttying.pool) ----

def split(st: state.Owntext, n: int) -> list[dict]:
    """The Run's two models in at most n parts: {"models": [name]} (the text travels in the part's state)."""
    return [{"models": p} for p in pool.balanced(list(MODELS), n)]


def iter_part(st: state.Owntext, part: dict):
    """iter_runs for the part's models alone (tied and untied of one seed are independent runs), without the
    trained parameters (a part sends what the section shows); a finished run's dict carries the last loss."""
    loss = 0.0
    for p in iter_runs(st, models=tuple(part["models"])):
        loss = p.get("loss", loss)
        yield {k: v for k, v in p.items() if k != "final"} | {"loss": loss}


def merge(st: state.Owntext, streams: list[list[dict]]) -> dict:
    """The entry the parts have streamed so far, filed as one Run files it: {sample: entry} ({} before any part
    has tokenised the text); the streams are left as they are."""
    entry = next((p["entry"] for s in streams for p in s if "entry" in p), None)
    if entry is None:
        return {}
    results = {st.sample: {**entry, "models": {m: {"curve": []} for m in MODELS}}}
    for p in (p for s in streams for p in s if "entry" not in p):
        collect(results, p)
    return results
