"""Live section: the sigma / inScale initialisation sweep.

Sliders (log scale, applied on release) set sigma and inScale; the readout shows both scales for that
setting, and two heatmaps show them over the whole grid with the settings that put both within the
band outlined and the current setting marked. Panes and data sources are built once and updated in
place (.object / .data), so each change sends a small patch, never a re-render.
"""
from __future__ import annotations

import functools

import numpy as np
import panel as pn
from bokeh.models import ColorBar, ColumnDataSource, LinearColorMapper
from bokeh.palettes import RdBu11
from bokeh.plotting import figure

from ... import sweep
from ...views.sweep import hits as sweep_hits, readout as sweep_readout
from ..store import Store, controls
from ..widgets import export_buttons

SCALES = (("resid", "Residual-stream scale"), ("logit", "Logit scale"))
LOG_RANGE = 4  # colours span scales 1e-4 .. 1e4; 1 is white, in the middle of the diverging palette

EXPLAIN = """<p class="wt-help">Colour is log10 of the scale: white is 1, red is too large, blue too small.
Outlined cells put <em>both</em> scales in the band; the black ring is the current setting (it can lie off
the grid: the sliders reach further than the grid does).</p>"""


@functools.lru_cache(maxsize=2)
def _grid(kind: str) -> dict:
    """Both scales over one grid; independent of the band, so a band change does not recompute them."""
    return sweep.sweep_grid(kind)


def _grid_data(kind: str, band: float) -> tuple[dict, dict, dict, np.ndarray]:
    """(image data, hit-cell data, the grid with this band, its hit mask) for the heatmaps."""
    g = _grid(kind)
    hits = sweep.in_band(g["resid"], band) & sweep.in_band(g["logit"], band)
    lx, ly = np.log10(g["sigmas"]), np.log10(g["in_scales"])
    dx, dy = lx[1] - lx[0], ly[1] - ly[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        images = {key: [np.log10(g[key]).T] for key, _ in SCALES}  # rows in_scale (y), columns sigma (x)
    image = {"x": [lx[0] - dx / 2], "y": [ly[0] - dy / 2], "dw": [dx * len(lx)], "dh": [dy * len(ly)], **images}
    i, j = np.nonzero(hits)
    cells = {"x": lx[i], "y": ly[j], "w": np.full(i.size, dx), "h": np.full(i.size, dy)}
    return image, cells, {**g, "band": band}, hits


def build(store: Store) -> pn.viewable.Viewable:
    """The sweep section's Panel root, bound to store["sweep"]."""
    p = store["sweep"]
    image, cells, grid, hits = _grid_data(p.grid, p.band)
    image_src, cells_src = ColumnDataSource(image), ColumnDataSource(cells)
    point_src = ColumnDataSource({"x": [np.log10(p.sigma)], "y": [np.log10(p.in_scale)]})
    mapper = LinearColorMapper(palette=RdBu11, low=-LOG_RANGE, high=LOG_RANGE, nan_color="#777777")
    figs = []
    for key, title in SCALES:
        f = figure(title=title, height=320, sizing_mode="stretch_width", min_width=260, tools="",
                   toolbar_location=None, x_axis_label="log10 σ", y_axis_label="log10 inScale",
                   match_aspect=False)
        f.image(image=key, x="x", y="y", dw="dw", dh="dh", source=image_src, color_mapper=mapper)
        f.rect(x="x", y="y", width="w", height="h", source=cells_src, fill_alpha=0, line_color="#e69f00",
               line_width=3)
        f.scatter(x="x", y="y", source=point_src, size=14, fill_alpha=0, line_color="black", line_width=3)
        f.add_layout(ColorBar(color_mapper=mapper, title="log10 scale", width=10), "right")
        figs.append(pn.pane.Bokeh(f, sizing_mode="stretch_width"))

    readout = pn.pane.HTML(sweep_readout(p.sigma, p.in_scale, p.band), sizing_mode="stretch_width")
    hit_line = pn.pane.HTML(sweep_hits(p.grid, p.band), sizing_mode="stretch_width")

    def on_point(*_):
        readout.object = sweep_readout(p.sigma, p.in_scale, p.band)
        point_src.data = {"x": [np.log10(p.sigma)], "y": [np.log10(p.in_scale)]}

    def on_grid(*_):
        image, cells, grid, hits = _grid_data(p.grid, p.band)
        image_src.data, cells_src.data = image, cells
        hit_line.object = sweep_hits(p.grid, p.band)
        on_point()

    def table():
        """The current setting, then every grid cell: both scales and whether both are in the band."""
        cur = sweep.init_scales(p.sigma, p.in_scale)
        _, _, g, mask = _grid_data(p.grid, p.band)
        rows = [("current", p.sigma, p.in_scale, float(cur["resid"]), float(cur["logit"]),
                 int(sweep.in_band(np.array([cur["resid"], cur["logit"]]), p.band).all()))]
        rows += [(f"{p.grid} grid", float(s), float(k), float(g["resid"][i, j]), float(g["logit"][i, j]),
                  int(mask[i, j])) for i, s in enumerate(g["sigmas"]) for j, k in enumerate(g["in_scales"])]
        return ("setting", "sigma", "in_scale", "resid", "logit", "both_in_band"), rows

    p.param.watch(on_point, ["sigma", "in_scale"])
    p.param.watch(on_grid, ["grid", "band"])
    return pn.Column(
        pn.Row(controls(store, "sweep"), pn.Column(readout, hit_line, sizing_mode="stretch_width"),
               sizing_mode="stretch_width"),
        pn.Row(*figs, sizing_mode="stretch_width"),
        pn.pane.HTML(EXPLAIN, sizing_mode="stretch_width"),
        export_buttons(store, "sweep", "sweep", table),
        css_classes=["wt-sweep"], sizing_mode="stretch_width")
