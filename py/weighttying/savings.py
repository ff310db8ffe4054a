"""What tying saves in a GPT-2-style transformer: exactly V*d parameters, and what share that is.

Counting convention (GPT-2's own): every weight and bias, learned position embeddings, two
LayerNorms per block and a final one. The share is V*d over the untied total; with GPT-2 small's
real config this gives 23.7%, the page's figure.
"""
from __future__ import annotations

# The page names these three models without configs; GPT-2 small is its published config, the other
# two are our plausible stand-ins, chosen so that this counting reproduces the page's share:
#   large-vocab-toy: a 32k SentencePiece vocabulary (as in Llama) on a 4-block, width-128 model.
#   char-model: tiny-Shakespeare characters (65) on a 4-block, width-256 model.
PRESETS = {
    "gpt2-small": dict(V=50257, d=768, n_layers=12, d_ff=3072, n_heads=12, context=1024),
    "large-vocab-toy": dict(V=32000, d=128, n_layers=4, d_ff=512, n_heads=4, context=512),
    "char-model": dict(V=65, d=256, n_layers=4, d_ff=1024, n_heads=4, context=256),
}


def block_params(d: int, d_ff: int) -> int:
    """Parameters of one pre-LN transformer block of width d: attention, MLP and two LayerNorms."""
    attention = (d * 3 * d + 3 * d) + (d * d + d)  # fused q, k, v projection, then the output projection
    mlp = (d * d_ff + d_ff) + (d_ff * d + d)
    layernorms = 2 * 2 * d  # a gain and a bias each
    return attention + mlp + layernorms


def tying_saving(V: int, d: int, n_layers: int, d_ff: int, n_heads: int | None = None, context: int = 0) -> dict:
    """{saved (= V*d), untied, tied, share (saved / untied)} for a GPT-2-style config (ints, share float)."""
    if n_heads is not None and d % n_heads:
        raise ValueError(f"d={d} is not divisible by n_heads={n_heads}")
    # heads split d, they do not add parameters: n_heads only has to divide d
    tied = V * d + context * d + n_layers * block_params(d, d_ff) + 2 * d
    untied = tied + V * d
    return {"saved": untied - tied, "untied": untied, "tied": tied, "share": (untied - tied) / untied}



def toy_params(V: int, d: int, hidden: int = 64, tied: bool = True) -> int:
    """Parameters of the toy (model.Config): E (V, d), U (V, d) when untied, one MLP d -> hidden -> d."""
    mlp = (d * hidden + hidden) + (hidden * d + d)
    return (1 if tied else 2) * V * d + mlp


def share_curve(Vs, d: int, n_layers: int, d_ff: int, context: int = 0) -> list[float]:
    """share (V*d / untied total) for each V in Vs, the other dimensions fixed: rises towards 1/2, never reaches it."""
    return [tying_saving(int(V), d, n_layers, d_ff, context=context)["share"] for V in Vs]
