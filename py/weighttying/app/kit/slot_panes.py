"""One HTML pane per slot of a view, filled from view.slots(st, results), and the build's results a section
starts from."""
from __future__ import annotations

import copy
import weakref
from typing import Callable, Sequence

import panel as pn

from ...precision import carry
from ...views import contract
from ...views import kit as views_kit
from ..store import Store
from .exports import figure_download
from .panes import guard, html_pane



class Slots:
    """One HTML pane per slot of the section's view (`view`, views.contract), filled from view.slots(st, results)
    for the store's state.

    `show(results)` redraws every slot for the section's current state (a pane whose HTML did not
    change sends nothing to the page); a failure leaves the panes as they were and says why in `error`.
    """

    def __init__(self, store: Store, section: str, results: Callable[[], object] = lambda: None):
        self.store, self.section, self.results = store, section, results
        self.view = contract.view(section)
        self.panes = {name: html_pane(views_kit.slot(name, "")) for name in self.view.SLOTS}
        self.error = html_pane()
        self.show = guard(self.error, self._show)
        self.downloads: list = []  # figures' SVG downloads, which `layout` puts in "Data and downloads"
        SECTION_SLOTS.setdefault(store, {})[section] = self

    def __getitem__(self, name: str) -> pn.pane.HTML:
        return self.panes[name]

    def _show(self, *_) -> None:
        # carried as the build carries its results, so a live run draws what the build would, on any machine
        for name, inner in self.view.slots(self.store.state_of(self.section), carry(self.results())).items():
            self.panes[name].object = views_kit.slot(name, inner)

    def figure(self, name: str) -> pn.viewable.Viewable:
        """A figure slot, with its overlay slot (view.OVERLAYS) drawn over it in one grid cell; a download
        of what it shows as an SVG file stamped with the link that reproduces it joins `downloads`."""
        over = {base: o for o, base in self.view.OVERLAYS.items()}.get(name)
        shown: pn.viewable.Viewable = self.panes[name]
        if over:
            self.panes[name].styles = {"grid-area": "1 / 1"}
            self.panes[over].styles = {"grid-area": "1 / 1", "pointer-events": "none"}
            shown = pn.Column(self.panes[name], self.panes[over], styles={"display": "grid"},
                              css_classes=["wt-stack"], sizing_mode="stretch_width")
        panes = [self.panes[n] for n in (name, over) if n]
        self.downloads.append(figure_download(self.store, self.section, f"{self.section}-{name}",
                                              lambda: [p.object for p in panes]))
        return pn.Column(shown, sizing_mode="stretch_width")  # a box of its own: wrap_row restyles it, not the stack

    def redraw_on(self, fields: Sequence[str] | None = None) -> "Slots":
        """Draw now and again whenever one of `fields` (default: every control of the section) changes."""
        obj = self.store[self.section]
        self.store[self.section].param.watch(self.show, list(fields or [p for p in obj.param if p != "name"]))
        self.show()
        return self


# Each store's Slots by section, so `layout` can place what a section hands it in the view's order.
SECTION_SLOTS: "weakref.WeakKeyDictionary[Store, dict[str, Slots]]" = weakref.WeakKeyDictionary()


def prebuilt_for(store: Store, section: str) -> dict | None:
    """The build's results for the section's current settings, as a copy the section may extend;
    None when there are none for them (other settings, or no results file)."""
    data = (store.prebuilt or {}).get(section)
    if data is None or not views_kit.built_applies(contract.view(section), store.state_of(section)):
        return None
    return copy.deepcopy(data)


def kept(store: Store, section: str, keys: Sequence[str]) -> dict:
    """The parts `keys` of the build's results that a live run keeps because it does not recompute them (the
    seed spread that judges a single run, the paper's tuned lens); {} without the build's results."""
    data = (store.prebuilt or {}).get(section) or {}
    return {k: copy.deepcopy(data[k]) for k in keys if k in data}
