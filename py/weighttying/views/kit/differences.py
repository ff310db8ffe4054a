"""Central differences at init, computed once per model and batch by whoever owns the memo."""
from __future__ import annotations

import numpy as np

from ... import gradcheck, model



class Differences:
    """Central differences of model.init_params(cfg) by (cfg, inputs, targets), the newest SIZE kept, read-only.

    No module holds one: its owner passes it to every check of the same model on the same batch (live,
    the Store's, through which the gradient-check and path-drop sections both check the default model),
    so each is computed once."""
    SIZE = 8

    def __init__(self) -> None:
        self._grads: dict = {}

    @staticmethod
    def key(cfg: model.Config, inputs, targets) -> tuple:
        """The memo's key of one model and batch."""
        return cfg, tuple(np.asarray(inputs).tolist()), tuple(np.asarray(targets).tolist())

    def get(self, cfg: model.Config, inputs, targets) -> dict | None:
        """The central differences {name: read-only array} of this model and batch, or None when not known."""
        grads = self._grads.get(self.key(cfg, inputs, targets))
        return None if grads is None else dict(grads)

    def keep(self, cfg: model.Config, inputs, targets, numeric: dict) -> dict:
        """Keep central differences {name: array or nested lists} for this model and batch; what get() gives."""
        grads = {name: np.array(g, dtype=float) for name, g in numeric.items()}
        for grad in grads.values():
            grad.flags.writeable = False  # shared by every caller: nobody may change it
        self._grads[self.key(cfg, inputs, targets)] = grads
        while len(self._grads) > self.SIZE:
            self._grads.pop(next(iter(self._grads)))
        return dict(grads)

    def steps(self, cfg: model.Config, inputs, targets):
        """gradcheck.iter_numerical_grads of model.init_params(cfg) through the memo: progress dicts, the last
        with "numeric" (a single one when known)."""
        if (known := self.get(cfg, inputs, targets)) is not None:
            total = sum(P.size for P in known.values())
            yield {"step": total, "total": total, "numeric": known}
            return
        for point in gradcheck.iter_numerical_grads(model.init_params(cfg), cfg, inputs, targets):
            if "numeric" in point:
                point = {**point, "numeric": self.keep(cfg, inputs, targets, point["numeric"])}
            yield point


def last(points):
    """The last item of an iterator of progress dicts (run it to the end)."""
    for point in points:
        pass
    return point
