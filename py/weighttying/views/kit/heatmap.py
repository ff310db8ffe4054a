"""E's error heatmap (gradient check, path drop): the entrywise relative error, wrong rows outlined."""
from __future__ import annotations

import numpy as np

from ... import pathdrop, render
from .tables import note



TOL = pathdrop.TOL  # an entry of a gradient agrees when its relative error is at most this
# A relative error's significant figures under the pointer: it is judged against TOL, and its further digits,
# rounding noise, would cost the gradient check's playback table a third more bytes.
ERROR_DIGITS = 2


def shown_errors(err) -> np.ndarray:
    """Relative errors as the page shows them: an entry at or under TOL agrees, and shows as 0 (known only to be
    at most TOL); an entry over TOL keeps its error, the size of a real difference."""
    # An agreeing entry's error is rounding noise, not a property of the gradient: over the gradient check's
    # playback grid the same entry's error moved by up to 1.4e-9 between two OpenBLAS kernels, where agreeing
    # errors reach 3.3e-6, so no digit of it (nor the shade it gives) is the same on every machine.
    err = np.asarray(err, float)
    return np.where(err > TOL, err, 0.0)


def row_errors(err: np.ndarray) -> np.ndarray:
    """Max relative error of each row of E (V,)."""
    return err.max(axis=1)


def heatmap_desc(err: np.ndarray, inputs) -> str:
    """The text alternative of E's error heatmap: which rows are wrong, which tokens the batch read."""
    bad = np.flatnonzero(row_errors(err) > TOL).tolist()
    return (f"Rows of E over {TOL:g}: {len(bad)} of {len(err)}"
            f"{' (' + ', '.join(map(str, bad)) + ')' if 0 < len(bad) <= 16 else ''}; "
            f"tokens in the batch: {', '.join(map(str, np.unique(inputs).tolist()))}; "
            f"largest row error {render.num(float(err.max())) if err.max() > TOL else f'at most {TOL:g}'}.")


def error_heatmap(err: np.ndarray, inputs, title: str, heading: str = "") -> str:
    """E's entrywise relative error as a d x V grid (x = row of E = token id), rows over TOL outlined; under it
    what to see, the rows and tokens in full in its description."""
    err = np.asarray(err, float)  # the build's results arrive as nested lists
    V, d = err.shape
    bad = row_errors(err) > TOL
    mark = np.broadcast_to(bad, (d, V))
    said = (f"Outlined: the {int(bad.sum())} rows of E whose gradient is wrong (error over {TOL:g}); the others are "
            "right to rounding." if bad.any() else f"No row of E is wrong: every entry is within {TOL:g}.")
    return (render.heatmap(err.T, np.arange(V), np.arange(d), title, "row of E (token id)", "column of E", mark=mark,
                      zname="relative error", zdigits=ERROR_DIGITS, heading=heading, zlabel="relative error",
                      alt=heatmap_desc(err, inputs), zrange=(TOL, 1.0))
            + note(said))
