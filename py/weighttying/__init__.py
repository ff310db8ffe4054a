"""Weight tying in language models: a NumPy lab (numerics) and its Panel explainer (app)."""
