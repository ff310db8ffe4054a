"""The page's sections: each one's State dataclass of controls, the registry (REGISTRY) that declares a section and
its parts once, the test-only sections $WT_TEST_SECTIONS adds, and Sections, every section's state in page order."""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
from dataclasses import dataclass, field

from .. import codelab, codelab_bugs, recipes
from ..model import Config
from .kinds import spec

TOY = Config()  # the page's toy model: its V, d and sigma are the defaults of the controls that set them
PACKAGE = __package__.rpartition(".")[0]  # weighttying: the views and app modules live beside this package


def seed_spec():
    """The seed control every stochastic section shares."""
    return spec(0, "Random seed: same seed, same numbers, in CPython and in the browser.", 0, 2**31 - 1)


@dataclass(frozen=True)
class Tying:
    V: int = spec(TOY.V, "Vocabulary size V: how many tokens; the rows of E (and of U when untied).", 2, 1_000_000)
    d: int = spec(TOY.d, "Model width d: the length of every token vector; the columns of E and U.", 1, 100_000)


@dataclass(frozen=True)
class Gradcheck:
    tied: bool = spec(True, "Tied: the output projection is E itself; untied: a separate U.")
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x); 0 removes the residual stream.", 0.0, 1.0)
    batch: int = spec(32, "Tokens in the batch the gradient is checked on.", 1, 256)
    repeats: bool = spec(True, "Force repeated tokens into the batch (the case a plain `dE[t] += dx` gets wrong).")
    seed: int = seed_spec()


@dataclass(frozen=True)
class Pathdrop:
    input: bool = spec(True, "Keep the input path into E: the sparse rows of the tokens that were read.")
    output: bool = spec(True, "Keep the output path into E: the dense dlogits.T @ h over every row.")
    k: int = spec(20, "Entries a random-entry gradient check samples.", 1, 1024)
    steps: int = spec(recipes.PATHDROP.steps, "Training steps for the correct vs broken loss curves.", 1, 5000)
    lr: float = spec(recipes.PATHDROP.lr, "Learning rate of those runs (too large diverges: try it).", 1e-4, 1e3,
                      log=True)
    seed: int = seed_spec()


@dataclass(frozen=True)
class Codelab:
    bug: str = spec("correct", "A backward to check: the lesson's correct one, one of its classic bugs (each a "
                    "one- or two-line edit of it), or yours, the code in the editor.",
                    choices=(*(b.id for b in codelab_bugs.BUGS), "yours"), own="yours",
                    shown={**{b.id: b.label for b in codelab_bugs.BUGS}, "yours": "yours: the code in the editor"})
    code: str = spec(codelab.original_source(), "Your backward: edit the lesson's code, then Run checks it in this "
                     "browser. It stays here: never in the address bar or a download's settings.", kind="code")
    k: int = spec(20, "Entries a random-entry gradient check draws (more than there are checks every one).", 1, 4096)
    steps: int = spec(recipes.PATHDROP.steps, "Training steps of the race: this backward against the page's, "
                      "from one init on the same batches.", 1, 5000)


@dataclass(frozen=True)
class Repeat:
    tied: bool = spec(True, "Tied: logits are read against E, the matrix the model reads from; untied: a separate U. "
                             "Picks the model the readout and histogram show (the race trains both).")
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x). 1 keeps a copy of E[t] in h; 0 is the control "
                            "without it (still tied).", 0.0, 1.0)
    sigma: float = spec(TOY.sigma, "Init std of E (and U): the self-term res * |E[t]|^2 grows as σ^2.", 1e-8, 1e8,
                        log=True, label="σ")
    steps: int = spec(recipes.REPEAT.steps, "Training steps of the tied-vs-untied race (the page reports 600).", 0, 5000)
    lr: float = spec(recipes.REPEAT.lr, "Learning rate of the race (too large diverges: the run stops and says so).",
                      1e-4, 1e3, log=True)
    seed: int = spec(0, "Random seed: the table averages seeds seed..seed+4; the readout, histogram and race use seed. "
                         "Same seed, same numbers in CPython and in the browser.", 0, 2**31 - 1)


@dataclass(frozen=True)
class Tasks:
    seeds: int = spec(5, "Seeds 0..seeds-1 (model init and batches): the table reports the mean and the per-seed "
                          "ratio range.", 1, 10)
    steps: int = spec(recipes.TASKS.steps, "Training steps per model and seed (the page does not say; chosen by our "
                      "search).", 10, 5000)
    lr: float = spec(recipes.TASKS.lr, "Learning rate of every run.", 1e-4, 1e3, log=True)


@dataclass(frozen=True)
class Owntext:
    sample: str = spec("prose", "The text to train on: a shipped sample (English prose, Python source, a song with a "
                        "refrain) or yours, pasted or from a file (yours never enters the address bar).",
                        choices=("prose", "code", "song", "yours"), own="yours")
    text: str = spec("", "Your text, pasted (at least 200 characters, at most 2 MB): choosing it makes the sample "
                     "'yours'. It stays in this browser: never in the address bar or a download.", kind="text")
    file: str = spec("", "Or a .txt file (UTF-8, at most 2 MB), chosen, or dropped anywhere on this section: its text is yours, "
                     "like a paste, whichever came last.", kind="file")
    cap: int = spec(96, "Vocabulary cap: at most this many tokens; beyond it the rarest characters share one "
                     "'other' token.", 2, 256)
    d: int = spec(TOY.d, "Model width d: the length of every character's vector (E's columns, U's too untied).", 1, 128)
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x); 1 keeps the character just read in h.", 0.0, 1.0)
    sigma: float = spec(TOY.sigma, "Init std of E (and U).", 1e-3, 10.0, log=True, label="σ")
    steps: int = spec(1500, "SGD steps per model (batches of 64 character pairs from the first 90 %).", 10, 5000)
    lr: float = spec(0.5, "Learning rate of both models (too large diverges: the run stops and says so).", 1e-4, 1e3,
                      log=True)
    seed: int = spec(0, "Random seed: init, batches and the samples. Same seed, same numbers in CPython and in "
                      "the browser.", 0, 2**31 - 1)
    prompt: str = spec("", "Prompt for the samples each model writes: its last character starts them (the toy reads "
                       "one character); empty, the sample's own. Never in the address bar.", kind="line")


@dataclass(frozen=True)
class Sweep:
    sigma: float = spec(TOY.sigma, "Init std of E: scales both the residual stream and the logits.", 1e-8, 1e8, log=True,
                        label="σ")
    in_scale: float = spec(1.0, "inScale: x = inScale * E[t]; scales the residual stream only.", 1e-8, 1e8, log=True,
                           label="inScale")
    grid: str = spec("coarse", "Grid resolution of the sweep.", choices=("coarse", "fine"))
    band: float = spec(0.1, "Half-width of the 'near 1' band, as a fraction: 0.1 means 0.9 to 1.1.", 0.01, 1.0)


@dataclass(frozen=True)
class Savings:
    preset: str = spec("gpt2-small", "A model to start from: picking one fills in the numbers below; "
                        "editing any of them switches to 'custom'.",
                        choices=("gpt2-small", "large-vocab-toy", "char-model", "custom"))
    V: int = spec(50257, "Vocabulary size V (tokens).", 2, 10_000_000)
    d: int = spec(768, "Model width d.", 1, 100_000)
    layers: int = spec(12, "Transformer blocks (attention + MLP each).", 0, 1000)
    d_ff: int = spec(3072, "MLP hidden width per block (GPT-2 uses 4d).", 1, 1_000_000)
    context: int = spec(1024, "Context length: rows of the learned position embedding.", 0, 10_000_000)


@dataclass(frozen=True)
class Paper:
    scale: float = spec(1.0, "Input-gradient scale: the input-path gradient into the tied E is multiplied by this "
                         "before the update (the paper's intervention). 1 is plain training, 0 turns the input path off.",
                         0.0, 100.0)
    seeds: int = spec(3, "Seeds per model (seed, seed+1, ...): similarity and lens are averaged over them.", 1, 5)
    steps: int = spec(300, "Training steps of every run.", 10, 5000)
    lr: float = spec(0.5, "Learning rate of every run (large input-gradient scales diverge at 0.5: lower it).",
                      1e-4, 1e3, log=True)
    seed: int = seed_spec()


@dataclass(frozen=True)
class Section:
    """A section, declared once: its id, its State dataclass, its view module (views/__init__.py says what it holds),
    its app module (live controls and runs beyond the shared ones; None: app.sections.generic serves it) and its
    prose (a file under the repository, wrapped with the live box by the build). check() fails naming a missing part."""
    id: str
    state: type
    view: str
    app: str | None
    html: str


def page_section(sid: str, state: type, app: bool = True) -> Section:
    """A section of the page, its parts where the page keeps them: views/<id>.py, app/sections/<id>.py,
    site/sections/<id>.html."""
    return Section(sid, state, f"{PACKAGE}.views.{sid}", f"{PACKAGE}.app.sections.{sid}" if app else None,
                   f"site/sections/{sid}.html")


EXTRA_SECTIONS = "WT_TEST_SECTIONS"  # modules declaring test-only sections (build.py --with-test-sections), comma-separated


def extra_sections() -> tuple[Section, ...]:
    """The sections the modules named in $WT_TEST_SECTIONS declare (each its SECTION), after the page's."""
    names = [n for n in os.environ.get(EXTRA_SECTIONS, "").split(",") if n]
    return tuple(importlib.import_module(n).SECTION for n in names)


# The page's sections in page order: the one list of them, and of their parts.
REGISTRY = (
    page_section("tying", Tying),
    page_section("gradcheck", Gradcheck),
    page_section("pathdrop", Pathdrop),
    page_section("codelab", Codelab),
    page_section("repeat", Repeat),
    page_section("tasks", Tasks),
    page_section("owntext", Owntext),
    page_section("sweep", Sweep),
    page_section("savings", Savings),
    page_section("paper", Paper),
    *extra_sections(),
)
SECTIONS = tuple(s.id for s in REGISTRY)
SECTION = {s.id: s for s in REGISTRY}


def missing_parts(root) -> list[str]:
    """What the registry declares and cannot be found, one line each naming the file (root: the repository, a
    pathlib.Path, which a declaration's prose path is relative to); [] when every part is there."""
    out = []
    for s in REGISTRY:
        for what, module in (("view", s.view), ("app", s.app)):
            if module and _find(module) is None:
                out.append(f"section {s.id!r}: its {what} module {module} is missing "
                           f"({module.replace('.', '/')}.py, looked up on sys.path)")
        if not (root / s.html).is_file():
            out.append(f"section {s.id!r}: its prose {s.html} is missing")
    return out


def _find(module: str):
    """importlib's spec of a module, or None when it (or its package) cannot be found."""
    try:
        return importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None


Sections = dataclasses.make_dataclass(
    "Sections", [(s.id, s.state, field(default_factory=s.state)) for s in REGISTRY], frozen=True)
Sections.__doc__ = "Every section's state, in page order (REGISTRY)."
