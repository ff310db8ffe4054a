"""Paper section: the streamed study equals the report's batch functions; the claims table states the
toy's (dis)agreements the prose makes; the live section streams, drops a run on a change and cancels."""
import asyncio
import re

import numpy as np
import panel as pn

from harness import run_is_over, until_async
from weighttying import paper, render
from weighttying import state
from weighttying.app.sections import paper as live
from weighttying.app.store import Store
from weighttying.views import paper as view
from carried_numbers import carried, near


def hooks(html: str) -> dict:
    return {k: v for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', html)}


def shown(root) -> str:
    return "".join(p.object or "" for p in root.select(pn.pane.HTML))


def slot(root, name: str) -> str:
    """The HTML the live pane of one slot shows."""
    [pane] = [p for p in root.select(pn.pane.HTML) if f'data-slot="{name}"' in (p.object or "")]
    return pane.object


def test_streamed_study_equals_the_batch_functions():
    r = paper.study()  # defaults: scale 1, 300 steps, seeds 0-2, lr 0.5: the report's settings
    assert r["norms"]["mean_ratio"] == paper.grad_norms()["mean_ratio"]
    a = paper.alignment(scales=(1.0,))[0]
    assert r["align"]["cka_with_U"] == a["cka_with_U"] and r["align"]["cka_with_E"] == a["cka_with_E"]
    assert r["lens"]["tied_loss_drop"] == paper.lens(True)["block1_loss_drop"]
    assert r["lens"]["untied_norm_share"] == paper.lens(False)["block1_norm_share"]


def test_what_the_prose_says_holds_at_the_defaults():
    r = paper.study()
    assert 1.1 < r["norms"]["mean_ratio"] < 1.4  # "dominates only mildly, about 1.3"
    assert r["align"]["ref_cka_with_U"] > r["align"]["ref_cka_with_E"]  # the bias reproduces
    claims = view.claim_rows(r)[1]
    assert "mildly" in claims[0][3] and claims[1][3].startswith("agrees")
    assert claims[3][3].startswith("not resolved")  # the lens: within 2 paired SE, the report's rule
    assert claims[3][3] == view.paired(r, "loss_drop")[2] + f", paired SE {render.num(view.paired(r, 'loss_drop')[1], 3)} over 3 seeds"
    assert claims[4][3].startswith("differs")  # the norm measure points the other way, and is not the paper's claim:
    assert claims[4][1] == "—" and "not the paper's claim" in claims[4][0]  # the prose's "norm row is another matter"
    four = paper.study(scale=4.0)
    assert four["align"]["cka_with_U"] < four["align"]["cka_with_E"]  # scaling by 4 reverses the bias
    assert "reverses" in view.claim_rows(four)[1][2][3]


def test_scale_zero_is_infinite_not_a_crash():
    r = paper.study(scale=0.0, steps=20, seeds=1)
    assert np.isinf(r["norms"]["mean_ratio"]) and "∞" in view.norms_readout(r["norms"], 0.0)
    assert "∞" in view.claims_html(r)


def button(root, name: str) -> pn.widgets.Button:
    [b] = [b for b in root.select(pn.widgets.Button) if b.name == name]
    return b


def drive(query: str, act, said: str):
    """Run the study at QUERY, act(store, root) while it runs, then wait until the Runner confirms the run over with
    SAID on its status line (its task has ended: nothing can be drawn after)."""
    async def main():
        store = Store(state.parse_query(query)[0])
        root = live.build(store)
        assert "not computed for these settings yet" in slot(root, "align")  # settings the build did not run wait
        button(root, "Run again").clicks += 1
        await act(store, root)
        await until_async(lambda: run_is_over(root, said), 120, f"the run to be over with {said!r}")
        return store, root
    return asyncio.run(main())


def test_live_section_streams_drops_the_run_on_change_and_matches_cpython():
    async def change(store, root):
        await asyncio.sleep(0.05)
        assert not button(root, "Cancel").disabled  # the 3000-step run is still going: it cannot finish in 0.05 s
        store["paper"].param.update(scale=4.0, steps=40)  # the scale-1 run is dropped, and the new setting waits for Run
        assert "Settings changed: the run was stopped" in shown(root) and not button(root, "Run again").disabled
        button(root, "Run again").clicks += 1

    store, root = drive("paper.seeds=1&paper.steps=3000", change, "Done.")
    want = paper.study(4.0, 40, 0, 1, 0.5)
    got = hooks(shown(root))
    assert float(got["paper-cka-u"]) == carried(want["align"]["cka_with_U"])
    assert near(got["paper-bias"], want["align"]["cka_with_U"] - want["align"]["cka_with_E"])  # of carried CKAs
    assert near(got["paper-ratio"], want["norms"]["mean_ratio"])
    assert near(got["paper-lens-drop-tied"], want["lens"]["tied_loss_drop"])
    assert "scaling input gradients (×4)" in slot(root, "claims")


def test_cancel_stops_the_run():
    async def cancel(store, root):
        await until_async(lambda: "Step" in shown(root), 60, "a first step")
        assert not button(root, "Cancel").disabled  # the run is going
        button(root, "Cancel").clicks += 1

    store, root = drive("paper.steps=5000", cancel, "Cancelled.")
    assert "Cancelled." in shown(root)
    assert "not computed for these settings yet" in slot(root, "align")  # no result was drawn
