"""The computed baselines shown beside their claims, with hooks, as the build plays them back."""
import dataclasses
import re

import pytest

from weighttying import measure, paper, recipes, repeat
from weighttying import state
from weighttying.views import kit
from weighttying.views import paper as paper_view
from weighttying.views import repeat as repeat_view
from weighttying.views import tasks as tasks_view


def hooked(html: str, testid: str) -> float:
    """The value a hook carries (as the page carries it: to the digits two runs agree on)."""
    return float(re.search(rf'data-testid="{testid}" data-value="([^"]+)"', html)[1])


def test_the_repeat_init_slot_shows_the_spread_of_its_own_seeds():
    st = state.Repeat(sigma=0.5, seed=2)
    init = repeat_view.slots(st)["init"]
    s = repeat.init_spread(sigma=0.5, seeds=range(2, 2 + repeat_view.SEEDS))
    assert init.index('data-testid="repeat-init-table"') < init.index('data-testid="repeat-spread"')
    assert {k: hooked(init, f"repeat-{k.replace('_', '-')}") for k in s} == pytest.approx(s, rel=1e-5, abs=1e-12)


def test_the_similarity_table_carries_its_step_zero_baselines():
    st = state.Paper()
    built = kit.with_results(paper_view, st)
    align = paper_view.slots(st, built)["align"]
    c = paper.init_cka(range(st.seed, st.seed + st.seeds))
    assert {k: hooked(align, f"paper-cka-{k[-1].lower()}-init") for k in c} == pytest.approx(c, rel=1e-5)
    assert "paper-cka-baselines" not in paper_view.slots(state.Paper(steps=10))["align"]  # pending: no table yet


def test_the_tasks_claim_counts_the_searched_recipes_at_the_recipe_in_use_only():
    st = state.Tasks()
    search = recipes.searched("tasks")
    claim = tasks_view.slots(st, tasks_view.empty())["claim"]
    assert {k: hooked(claim, f"tasks-search-{k.replace('_', '-')}") for k in search} == search
    assert "tasks-search" not in tasks_view.slots(state.Tasks(lr=0.25))["claim"]


@pytest.mark.parametrize("sid", sorted(set(measure.TRAINED) - {"tasks"}))  # the races: tasks counts in its claim
def test_each_race_counts_its_searched_recipes_beside_its_judged_numbers(sid):
    from weighttying.views.contract import view
    from weighttying.views import kit
    v, st = view(sid), getattr(state.State(), sid)
    shown = "".join(v.slots(st, kit.with_results(v, st)).values())
    search = recipes.searched(sid)
    assert {k: hooked(shown, f"{sid}-search-{k.replace('_', '-')}") for k in search} == search
    assert 1 <= search["all_within"] <= search["searched"]
    off = dataclasses.replace(st, lr=st.lr / 2)  # another recipe: its numbers are not the search's
    assert f"{sid}-search" not in "".join(v.slots(off).values())
