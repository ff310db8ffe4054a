"""Plain HTML tables and inline SVG figures: what the page shows before Python loads. No Panel, no Bokeh: build.py
calls these in CPython to prerender each section's default state, and the live sections reuse `table` for their HTML
panes, so a table reads the same before and after the upgrade. Every figure carries its data as a text alternative
(<title>/<desc> and a caption), and as compact JSON on its <svg data-fig> that site/readout.js reads to show the value
under the pointer (or the keyboard's cursor). One module per idea: `numbers` writes a number as a cell or the readout
shows it, and the tables; `svg` wraps a figure (viewBox, name and description, `diagram`), writes the readout's data
on its root (`readout_rules`) and saves a figure as a file (`standalone`); `axes` holds the plot box, round ticks,
grid lines, axis titles and the value-to-viewBox scale; `labels` places the names (keys, end labels spread off the
curves); `charts` draws the four kinds, `lines`, `heatmap` (with its colour scale), `bars` and `strips`; `marks`
rings the current setting over a heatmap or a line chart (`heatmap_at`, `lines_at`).
"""
from .axes import _nice, _nice_log, box, tick
from .charts import bars, heatmap, lines, strips
from .labels import LABEL_EM, LABEL_H, MOVE, _clear, _spread
from .marks import heatmap_at, lines_at
from .numbers import WHOLE_BELOW, num, shown, table
from .svg import FILE_CSS, _jnum, diagram, readout_rules, standalone
