"""One module per section: `views/<id>.py` is everything the section shows that depends on its state,
as named HTML fragments, with no Panel. The same functions serve three ways: prerendered at build,
played back from tables computed at build, and live in the browser's Panel section.

Every view module has:
- `SLOTS`: slot names in display order; `slots(st, results=None) -> {name: html}` with exactly these keys,
  `st` the section's frozen State dataclass (e.g. `state.Sweep`). Numbers carry `data-testid` and
  `data-value="{repr}"`, so played-back and live values compare exactly.
- `results(st)`: the section's heavy work (training runs, studies, the gradient check) as plain data,
  pure; `None` for a section without any. `slots` also takes partial results (a live run streaming).
- `RUN_KEYS`: the fields whose change leaves `results` out of date until the reader presses Run (the
  slots then say so; the one policy, app.kit.RunSection: nothing starts by itself); `()` for a view whose
  results follow every control (the gradient check) or that has none; `kit.with_results(view, st)` is the results a state shows without a run,
  as the build ships them (plain data marked as computed at build; `kit.source` says so on the page).
- `PLAYBACK`: {field: values}, the grid the playback tables cover (product over the fields; unlisted
  fields stay at their defaults). `DEPENDS`: {slot: fields it depends on}, so a table of one slot
  needs only the product over its own fields.
- `OVERLAYS`: {overlay slot: the slot it is drawn over} (e.g. sweep's ring at the current setting over a
  heatmap that does not depend on it): the overlay is listed right after its slot, has the figure's
  viewBox, and the prerender and the live section stack the two in one place.
- `FILLS`: {choice field: {"by": {choice: {field: value}}, "else": choice}}, a choice that fills in other
  controls (savings' preset and its five numbers): picking one fills them in, editing one of them away makes
  the choice "else", and a state whose fields are the defaults takes the choice's (on load). The live section
  does this itself; site/player.js does it from this before Python, and reads a choice showing its own fill
  as the choice alone, as the tables (and the URL) hold it. `{}` for most sections.

- Layout (`kit.compose`, and app/kit.layout live): `CLAIM`, the slot that opens the section with the page's
  claim beside ours (placed before the controls; "" for none); `PAIRS`, adjacent slots that compare, side
  by side on a wide screen; `DATA`, the last slots, in the section's closed "Data and downloads" disclosure
  with every download.

Shared HTML pieces live in `views/kit/` (one module per idea, imported as `from .kit import ...`); no view
imports another.
"""
