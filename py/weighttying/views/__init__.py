"""Per-section HTML (tables, readouts, inline SVG) without Panel: `views/<id>.py` has
`prerender(section_state) -> str`, used by build.py before Python loads and reused by the live
section so its numbers read the same before and after the upgrade."""
