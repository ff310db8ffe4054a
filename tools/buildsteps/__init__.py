"""build.py's stages and what they share, one idea per module (build.py runs them in order)."""
