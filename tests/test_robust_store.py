"""store.number_box: an emptied or out-of-range number box never fails a change (found by the soak:
typing '' into a FloatInput sent None, and param refused it: "The last change could not be applied")."""
import math

import pytest

from weighttying import state
from weighttying.app.store import Store, number_box


@pytest.mark.parametrize("key", ["sweep.sigma", "repeat.lr", "savings.V"])
def test_number_box_refuses_garbage_without_failing(key):
    c = state.BY_KEY[key]
    store = Store(state.State())
    obj = store[c.section]
    box = number_box(obj, c)
    box.value = None  # an emptied box
    assert getattr(obj, c.name) == c.default and box.value == c.default
    box.value = c.type(c.hi) * 10  # beyond the bound: clamped, box shows what is used
    assert getattr(obj, c.name) == c.hi and box.value == c.hi
    if c.type is float:
        box.value = math.inf
        assert getattr(obj, c.name) == c.hi and box.value == c.hi
    box.value = c.type(c.lo)
    assert getattr(obj, c.name) == c.lo
    setattr(obj, c.name, c.default)  # param -> box
    assert box.value == c.default
