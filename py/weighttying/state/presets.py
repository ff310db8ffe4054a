"""Named settings per section (PRESETS) and the fills a view declares (fill): what one choice sets in the others."""
from __future__ import annotations

from .page import BY_KEY, State
from .sections import TOY

# Named settings per section, one click away in each section's preset selector. A preset names only
# the controls it sets (by field name, as in the section's dataclass); the rest go back to their
# defaults, so a preset always means the same thing whatever was set before. tests/test_presets.py
# checks every name and value against the sections' specs. (savings has its presets as a control.)
CUSTOM_PRESET = "(your own settings)"  # what the selector shows when no preset matches
PRESETS: dict[str, dict[str, dict[str, object]]] = {
    "tying": {
        f"the page's toy (V={TOY.V}, d={TOY.d})": {},
        "GPT-2 small (V=50257, d=768)": {"V": 50257, "d": 768},
    },
    "gradcheck": {
        "tied, residual, repeated tokens": {},
        "untied, no residual": {"tied": False, "res": 0.0},
        "tied, no repeated tokens": {"repeats": False},
    },
    "pathdrop": {
        "both paths (correct)": {},
        "input path dropped": {"input": False},
        "output path dropped": {"output": False},
    },
    "repeat": {
        "tied, res=1": {},
        "untied": {"tied": False},
        "control res=0": {"res": 0.0},
    },
    "tasks": {
        "the page's five seeds": {},
        "one quick seed": {"seeds": 1, "steps": 200},
    },
    "owntext": {
        "Alice (English prose)": {},
        "Python source": {"sample": "code"},
        "a carol with a refrain": {"sample": "song"},
    },
    "sweep": {
        "page's coarse grid": {},
        "fine grid": {"grid": "fine"},
        "both near 1": {"sigma": 0.227, "in_scale": 4.5, "grid": "fine"},
    },
    "paper": {
        "as trained (scale 1)": {},
        "input-path gradient off": {"scale": 0.0},
        "input-path gradient x10": {"scale": 10.0},
    },
}


def preset_values(section: str, name: str) -> dict[str, object]:
    """{field: value} for every control of a section under a preset: defaults, then the preset's own."""
    return {**vars(getattr(State(), section)), **PRESETS[section][name]}


def linked(section: str, values: dict[str, object]) -> dict[str, object]:
    """The part of values ({field: value} of one section) a link holds: a reader's own text, file or prompt is
    not a setting, so a preset neither sets nor reads it."""
    return {k: v for k, v in values.items() if BY_KEY[k if section == "page" else f"{section}.{k}"].spec.url}


def matching_preset(section: str, current: dict[str, object]) -> str | None:
    """The name of the preset that current ({field: value} of one section) equals, if any."""
    return next((n for n in PRESETS.get(section, {})
                 if linked(section, preset_values(section, n)) == linked(section, current)), None)


def fill(fills: dict, values: dict[str, object], defaults: dict[str, object], changed: str = "") -> dict[str, object]:
    """Updates that make each choice of FILLS agree with the fields it fills in (a view's FILLS, see views/__init__).

    values and defaults are {field: value} of one section; changed is the field the reader just set, or ""
    for a state read from a link. Picking a choice fills in its fields; editing one of them away from the
    choice's makes the choice FILLS' "else"; a link whose fields are all at their defaults takes the choice's.
    site/state.js's fill is this function over the same data (tests/url_cases.json runs both)."""
    out: dict[str, object] = {}
    for key, rule in fills.items():
        want = rule["by"].get(values[key])
        if not want or all(values[f] == v for f, v in want.items()):
            continue
        if changed == key or (not changed and all(values[f] == defaults[f] for f in want)):
            out.update(want)
        elif not changed or changed in want:
            out[key] = rule["else"]
    return out
