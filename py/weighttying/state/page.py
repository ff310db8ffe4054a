"""The whole page's state (State: every section's, then the page's own, Page) and its controls as one table
(CONTROLS, BY_KEY): a State to and from {key: value}."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .kinds import KINDS, Kind, spec
from .sections import SECTIONS, Sections


@dataclass(frozen=True)
class Page:
    embed: str = spec("", "Render one section alone, compactly, for an iframe.", choices=("", *SECTIONS))
    hide: str = spec("", "Comma-separated things to hide: 'prose', 'controls', section ids or control keys.",
                      kind="hide")
    theme: str = spec("auto", "Colour scheme; 'auto' follows the reader's system.", choices=("auto", "light", "dark"))
    projector: bool = spec(False, "Projector mode: large type, thick lines and big controls, for a class reading "
                            "from the back of a room (1 = on).")
    live: str = spec("auto", "When the live lab (Python in the browser) loads: 'auto' at once, 'click' only when the "
                      "reader presses its button (data saver; the controls answer from precomputed tables).",
                      choices=("auto", "click"))


@dataclass(frozen=True)
class State(Sections):
    """The whole page: every section's state (Sections' fields, in page order), then the page's own."""
    page: Page = field(default_factory=Page)


@dataclass(frozen=True)
class Control:
    """One URL key: section.name, its kind (a name in KINDS), default and metadata."""
    section: str
    name: str
    kind: str
    default: object
    help: str
    lo: float | None
    hi: float | None
    choices: tuple | None
    own: str | None = None  # the choice the section's own text selects (spec)
    shown: tuple = ()  # (choice, what the reader reads for it) where that is not the choice itself (spec)
    label: str = ""  # the control's name as the reader reads it, where the prose names it otherwise (spec); else name

    def says(self, choice) -> str:
        """A choice as the reader reads it."""
        return dict(self.shown).get(choice, choice)

    @property
    def key(self) -> str:
        return self.name if self.section == "page" else f"{self.section}.{self.name}"

    @property
    def spec(self) -> Kind:
        return KINDS[self.kind]

    @property
    def type(self) -> type:
        return self.spec.type

    @property
    def log(self) -> bool:
        return self.spec.log


def controls() -> tuple[Control, ...]:
    """Every control of the page in page order; the single source for widgets and the URL."""
    out = []
    for sec in dataclasses.fields(State):
        for f in dataclasses.fields(sec.default_factory):
            m = f.metadata
            out.append(Control(sec.name, f.name, m["kind"], f.default, m["help"], m["lo"], m["hi"], m["choices"],
                               m["own"], m["shown"], m["label"] or f.name))
    return tuple(out)


CONTROLS = controls()
BY_KEY = {c.key: c for c in CONTROLS}


def from_values(values: dict[str, object]) -> State:
    """A State from {key: value} for known, already validated keys; the rest stay default."""
    sections = {}
    for sec in dataclasses.fields(State):
        kw = {c.name: values[c.key] for c in CONTROLS if c.section == sec.name and c.key in values}
        sections[sec.name] = sec.default_factory(**kw)
    return State(**sections)


def values(state: State) -> dict[str, object]:
    """{key: value} for every control of state, in page order."""
    return {c.key: getattr(getattr(state, c.section), c.name) for c in CONTROLS}


def replace(state: State, key: str, value: object) -> State:
    """A copy of state with one control changed (value already validated)."""
    c = BY_KEY[key]
    section = dataclasses.replace(getattr(state, c.section), **{c.name: value})
    return dataclasses.replace(state, **{c.section: section})
