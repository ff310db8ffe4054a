"""The Panel side of the one State: a param object per section, widgets bound to it, one poster of values.

`weighttying.state` owns the spec (types, bounds, help); this module only mirrors it into param so
widgets can bind to it and sections can `pn.bind` / `param.depends` on it. A section's changed values leave
in exactly one place: `Store._changed`, which hands {section: its link values} to whoever started the app (the
page's address bar, site/address.js, writes the URL from them).
"""
from __future__ import annotations

import math
from typing import Callable

import panel as pn
import param

from .. import state
from ..controls import help_box, help_html, title
from ..markup import escape
from ..views.kit import Differences

SLIDER_MAX_STEPS = 5000  # an integer range wider than this gets a number box, not a slider


# The param.Parameter that mirrors a control, by the type of its values (state.Kind.type); WIDGETS below draws it
PARAMETER_TYPES = {float: param.Number, int: param.Integer, bool: param.Boolean, str: param.String}


def parameter(c: state.Control) -> param.Parameter:
    """Control c as a param: one of its choices, or a value of its kind's type within its bounds (if it has any)."""
    if c.choices:
        return param.Selector(default=c.default, objects=list(c.choices), doc=c.help)
    bounds = {} if c.lo is None and c.hi is None else {"bounds": (c.lo, c.hi)}
    return PARAMETER_TYPES[c.type](c.default, doc=c.help, **bounds)


SECTION_CLASSES = {
    name: param.parameterized_class(
        name.title(), {c.name: parameter(c) for c in state.CONTROLS if c.section == name})
    for name in (*state.SECTIONS, "page")
}


class Store:
    """Live State: `store[section].<control>` are params; `store.page` is the page's frozen State."""

    def __init__(self, initial: state.State, on_change: Callable[[dict], None] = lambda values: None,
                 base_url: str = "", prebuilt: dict[str, dict] | None = None):
        self.on_change, self.base_url = on_change, base_url  # base_url: the page's address, for stamps
        # The build's default run results by section (weighttying.prebuilt); None: the page has none
        # (results.json missing or modified), so run sections compute their default results live.
        self.prebuilt = prebuilt
        # The page's central differences at init (the gradient check and path drop check the same default
        # model on the same batch): owned here, passed to both sections' views, so each is computed once.
        self.differences = Differences()
        self.sections = {name: cls(**vars(getattr(initial, name))) for name, cls in SECTION_CLASSES.items()}
        self._taken = {name: vars(getattr(initial, name)) for name in SECTION_CLASSES}  # take_playback()'s last values
        for sid, obj in self.sections.items():
            obj.param.watch(lambda *_, sid=sid: self._changed(sid), [p for p in obj.param if p != "name"])

    def __getitem__(self, section: str) -> param.Parameterized:
        return self.sections[section]

    @property
    def page(self) -> state.State:
        return state.from_values({c.key: getattr(self.sections[c.section], c.name) for c in state.CONTROLS})

    def state_of(self, section: str):
        """One section's frozen state (e.g. state.Sweep): the one way a section reads its controls."""
        obj = self.sections[section]
        return type(getattr(state.State(), section))(**{n: getattr(obj, n) for n in obj.param if n != "name"})

    def _changed(self, sid: str) -> None:
        self.on_change({sid: state.link_values(self.page, sid)})

    def take_playback(self, section: str, values) -> None:
        """Move one section to the values its playback controls hold (a state.<Section>), before its hand-over:
        only those that moved since the last take, so a value this side set itself stays (a text typed before
        Python makes the own-text sample 'yours'; a later move of another control must not undo that)."""
        new, old = vars(values), self._taken[section]
        self.sections[section].param.update(**{k: v for k, v in new.items() if v != old[k]})
        self._taken[section] = new

    def reset(self, section: str) -> None:
        """Put one section's controls back to their defaults (one URL write)."""
        self.sections[section].param.update(**vars(getattr(state.State(), section)))

    def apply_preset(self, section: str, name: str) -> None:
        """Set one section to a named preset of state.PRESETS (one URL write)."""
        self.sections[section].param.update(**state.linked(section, state.preset_values(section, name)))

    def hidden(self, token: str) -> bool:
        """Whether teacher mode hides this control key, section id, 'prose' or 'controls'."""
        return token in self.sections["page"].hide.split(",")


def _round_sig(x: float, digits: int = 3) -> float:
    """x to `digits` significant figures, so a dragged log slider writes a readable URL."""
    return float(f"{x:.{digits}g}")


def number_box(obj: param.Parameterized, c: state.Control, **kw) -> pn.widgets.Widget:
    """A number box for control c, linked both ways to its param by hand: an emptied box (None) or a
    value the param refuses puts the param's value back in the box instead of failing the change."""
    cls = pn.widgets.IntInput if c.type is int else pn.widgets.FloatInput
    # no description: the control's help is its "?" (control()); Bokeh's own would be a second "?" beside the name
    box = cls(name=c.label, value=getattr(obj, c.name), start=c.lo, end=c.hi, **kw)

    def to_param(e) -> None:
        v = e.new
        ok = v is not None and (c.type is int or math.isfinite(v))
        if ok:
            v = c.type(min(max(v, c.lo), c.hi))
            if v != getattr(obj, c.name):
                setattr(obj, c.name, v)
        if not ok or v != e.new:
            box.value = getattr(obj, c.name)

    box.param.watch(to_param, "value")
    obj.param.watch(lambda e: setattr(box, "value", e.new), c.name)
    return box


def log_control(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A log10 slider for exploring plus a number box for exact values, both on one param."""
    lo, hi = math.log10(c.lo), math.log10(c.hi)
    slider = pn.widgets.FloatSlider(name=title(c), start=lo, end=hi, step=0.01,
                                    value=math.log10(getattr(obj, c.name)), show_value=False,
                                    sizing_mode="stretch_width", min_width=130)
    # slider + box fit a 360 px screen: the slider shrinks, the box keeps room for "1e-08"
    box = number_box(obj, c, width=110)
    # The slider lives in log space, so it cannot bind to the param directly: two watchers do the
    # conversion, and the param stays the only state.
    slider.param.watch(lambda e: setattr(obj, c.name, _round_sig(10 ** e.new)), "value_throttled")
    # Only a change from elsewhere (box, reset, preset) moves the slider: echoing the slider's own change
    # back (rounded) would arrive late during a fast drag or key burst and pull the handle back.
    def to_slider(e) -> None:
        if _round_sig(10 ** slider.value) != e.new:
            slider.value = min(max(math.log10(e.new), lo), hi)

    obj.param.watch(to_slider, c.name)
    return pn.Row(slider, box, sizing_mode="stretch_width")


def _whole(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A slider over a narrow integer range, a number box over a wide one."""
    if c.hi - c.lo <= SLIDER_MAX_STEPS:
        return pn.widgets.IntSlider.from_param(obj.param[c.name], name=c.label, throttled=True)
    return number_box(obj, c)


def _number(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A slider in about a hundred steps of a round size."""
    step = 10 ** math.floor(math.log10((c.hi - c.lo) / 100))
    return pn.widgets.FloatSlider.from_param(obj.param[c.name], name=c.label, step=step, throttled=True)


def _text(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A text area for free text (long, never in a link), up to its kind's max_chars."""
    # description=None: the control's help is its "?" (control()); from_param's would be a second "?" by the name
    return pn.widgets.TextAreaInput.from_param(obj.param[c.name], name=c.label, max_length=c.spec.max_chars,
                                               sizing_mode="stretch_width", auto_grow=True, max_rows=12,
                                               description=None)


def _code(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A text area of code, which the page's editor takes over (site/codelab.js: .wt-code-input)."""
    return pn.widgets.TextAreaInput.from_param(obj.param[c.name], name=c.label, max_length=c.spec.max_chars,
                                               sizing_mode="stretch_width", rows=20, description=None,
                                               css_classes=["wt-code-input"])


def _file(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A file input (click or drop) whose UTF-8 text becomes the control's value; a file that is not text, or too
    long, is refused with a line saying why and changes nothing; one read is named with its size."""
    picker = pn.widgets.FileInput(accept=".txt,text/plain", name=c.label, sizing_mode="stretch_width")
    said = pn.pane.HTML("", sizing_mode="stretch_width")

    def read(*_) -> None:
        text, problem = state.decoded(picker.value, c.spec.max_chars)
        said.object = (f'<p class="wt-bad" role="alert">{escape(problem)}</p>' if problem else
                       f'<p class="wt-help" role="status">'
                       f'{escape(state.FILE_SAYS["read"].format(name=picker.filename or "the file", chars=f"{len(text):,}"))}</p>'
                       if text is not None else "")
        if text is not None:
            setattr(obj, c.name, text)

    picker.param.watch(read, ["value", "filename"])  # either may arrive first; a text set twice is one change
    return pn.Column(picker, said, sizing_mode="stretch_width")  # the picker's name is its label


def _numeric(obj: param.Parameterized, c: state.Control) -> pn.viewable.Viewable:
    """A number's widget: a log slider and box for a log kind, a whole number's slider or box, else a slider."""
    if c.log:
        return log_control(obj, c)
    return _whole(obj, c) if c.type is int else _number(obj, c)


BUTTONS = 4  # a choice's widget: this many choices or fewer as buttons, more as a dropdown (_choice)


def _choice(obj: param.Parameterized, c: state.Control) -> pn.widgets.Widget:
    """Buttons, one per choice; more than BUTTONS of them a dropdown, as the page's own select before Python, since a
    row of that many buttons wraps into a block. Each says the choice as the reader reads it (Control.says)."""
    options = {c.says(x): x for x in c.choices}
    kind = pn.widgets.Select if len(options) > BUTTONS else pn.widgets.RadioButtonGroup
    return kind.from_param(obj.param[c.name], name=c.label, options=options, description=None)  # as _text's


# Each input form's Panel widget, by state.Kind.input as the page's are (controls.INPUTS, site/player.js):
# (the section's param object, control) -> widget
WIDGETS = {
    "number": _numeric,
    "select": _choice,
    "checkbox": lambda obj, c: pn.widgets.Checkbox.from_param(obj.param[c.name], name=c.label),
    "text": lambda obj, c: pn.widgets.TextInput.from_param(obj.param[c.name], name=c.label),
    "textarea": _text,
    "code": _code,
    "file": _file,
    "line": lambda obj, c: pn.widgets.TextInput.from_param(obj.param[c.name], name=c.label, max_length=c.spec.max_chars,
                                                           sizing_mode="stretch_width", description=None),
}


def titled(w: pn.widgets.Widget, c: state.Control) -> pn.viewable.Viewable:
    """w with control c's label over it where Panel draws none: a row of buttons has no title, unlike a select or a
    slider, and before Python the same control is a labelled <select> (controls._select)."""
    if not isinstance(w, pn.widgets.RadioButtonGroup):
        return w
    heading = pn.pane.HTML(f'<span class="wt-group-title">{escape(c.label)}</span>', margin=(5, 10, 0, 10))
    w.sizing_mode = "stretch_width"  # as wide as when it stood alone in the control's row (site/live.css)
    return pn.Column(heading, w, margin=0, sizing_mode="stretch_width")


def control(store: Store, c: state.Control) -> pn.viewable.Viewable:
    """The labelled widget for control c with its help text beside it, hidden in teacher mode."""
    w = titled(WIDGETS[c.spec.input](store[c.section], c), c)
    return beside_help(w, help_html(c), c.section, c.name, not (store.hidden(c.key) or store.hidden("controls")))


def beside_help(w: pn.viewable.Viewable, help_text: str, section: str, name: str, visible: bool) -> pn.Column:
    """A control's widget w and its help's "?" (controls.help_html) on one line, as site/live.css lays out
    .wt-control; a stable handle per control for tests and for teacher-mode CSS: .wt-ctl-<section>-<name>."""
    return pn.Column(w, pn.pane.HTML(help_text, margin=(0, 10), css_classes=["wt-help-pane"]), visible=visible,
                     css_classes=["wt-control", f"wt-ctl-{section}-{name}"], sizing_mode="stretch_width")


def preset_selector(store: Store, section: str) -> pn.widgets.Select:
    """A labelled Select of the section's presets: picking one applies it; it names the preset the
    current settings match, or state.CUSTOM_PRESET when they match none."""
    obj = store[section]
    fields = [c.name for c in state.CONTROLS if c.section == section]

    def now() -> str:
        return state.matching_preset(section, {f: getattr(obj, f) for f in fields}) or state.CUSTOM_PRESET

    sel = pn.widgets.Select(name="Preset", options=[*state.PRESETS[section], state.CUSTOM_PRESET], value=now(),
                            sizing_mode="stretch_width", max_width=360,
                            # a teacher who locked any control of the section locks its presets too
                            visible=not any(store.hidden(f"{section}.{f}") for f in fields))

    def picked(event):
        if event.new != state.CUSTOM_PRESET and event.new != now():
            store.apply_preset(section, event.new)

    sel.param.watch(picked, "value")
    obj.param.watch(lambda *_: setattr(sel, "value", now()), fields)
    return sel


PRESET_HELP = "Named settings for this section; moving a control makes them your own."


def preset_control(store: Store, section: str) -> pn.Column:
    """The section's presets (preset_selector) with their help's "?" beside them, as every control has."""
    sel = preset_selector(store, section)
    return beside_help(sel, help_box(sel.name, PRESET_HELP), section, "preset", sel.visible)


def controls(store: Store, section: str) -> pn.Column:
    """Every control of one section, in spec order, with its presets (if any) and a reset button."""
    reset = pn.widgets.Button(name="Reset section", button_type="light", width=140)
    reset.on_click(lambda _: store.reset(section))
    rows = [control(store, c) for c in state.CONTROLS if c.section == section]
    presets = [preset_control(store, section)] if section in state.PRESETS else []
    return pn.Column(*presets, *rows, reset, css_classes=["wt-controls"], sizing_mode="stretch_width",
                     visible=not store.hidden("controls"))
