"""The code lab's named bugs: each a one- or two-line edit of the lesson backward's source text.

An edit replaces a piece of code that must occur exactly once in the original (new None removes the
whole line holding it), so a change to the original that a bug's edit no longer fits stops with the
bug's name instead of quietly giving the correct code. The edits are text, not functions: the page
shows a bug as the reader would type it, and runs it like anything the reader types.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    """A named edit: id (a slug), label (a few words), wrong (one sentence: what it gets wrong), edits ((old, new), ...)."""
    id: str
    label: str
    wrong: str
    edits: tuple[tuple[str, str | None], ...] = ()


BUGS = (
    Bug("correct", "the correct backward", "Nothing: every entry of every gradient is right."),
    Bug("output_only", "output path only: = where += belongs",
        "The output path's dlogits.T @ h is written over dE with = instead of added with +=, so the rows of the "
        "tokens the batch read lose their input-path gradient.",
        (("dE += dlogits.T @ h", "dE = dlogits.T @ h"),)),
    Bug("input_only", "input path only: the output path dropped",
        "dE never gets the output path's dlogits.T @ h, so every row of E misses the gradient of the logit it scores.",
        (("dE += dlogits.T @ h", None),)),
    Bug("buffered", "dE[t] += dx instead of np.add.at",
        "NumPy's fancy-index += is buffered: a token the batch reads several times gets one of its contributions, "
        "not their sum, so the rows of repeated tokens are wrong.",
        (("np.add.at(dE, inputs, cfg.in_scale * dx)", "dE[inputs] += cfg.in_scale * dx"),)),
    Bug("transposed", "a transposed product",
        "dh.T @ z for z.T @ dh is the transpose of W2's gradient: it has W2's shape flipped, which the page's "
        "shape check reports before any gradient check runs.",
        (("dW2 = z.T @ dh", "dW2 = dh.T @ z"),)),
    Bug("tanh_slope", "tanh' from the wrong variable",
        "tanh's slope is 1 - z**2 with z = tanh(a); 1 - a**2 uses the pre-activation, so W1, b1 and the input "
        "path into E are wrong.",
        (("(1 - z**2)", "(1 - a**2)"),)),
    Bug("in_scale", "in_scale forgotten",
        "x = in_scale * E[t], so the input path carries a factor in_scale; without it the rows of the batch's "
        "tokens get too little (or too much) of their input-path gradient.",
        (("np.add.at(dE, inputs, cfg.in_scale * dx)", "np.add.at(dE, inputs, dx)"),)),
)
BY_ID = {bug.id: bug for bug in BUGS}


def apply(source: str, bug: Bug) -> str:
    """source with bug's edits made, each one's old text required exactly once (ValueError naming the bug if not)."""
    for old, new in bug.edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"bug {bug.id!r}: {old!r} occurs {found} times in the source, not once: the original "
                             f"backward changed, so update its edit in codelab_bugs.BUGS")
        if new is None:
            start = source.rfind("\n", 0, source.index(old)) + 1
            end = source.find("\n", start)
            source = source[:start] + ("" if end < 0 else source[end + 1:])
        else:
            source = source.replace(old, new)
    return source
