"""The aligned/misaligned tasks section's output: the excess-loss table beside the page's numbers, the
parameter saving quoted both ways, the per-seed ratios (plot and table) and where the run stands. No Panel.

`results(st)` is every (seed, task) run, a Run's work of seconds: runs arrive pair by pair at the end of
tasks.iter_runs (all models train as one stack), `collect` files them by task, and `slots` draws whatever
has arrived, so the live section (streaming) and the build (everything at once) share every line of HTML.
Any change of seeds, steps or lr (RUN_KEYS) leaves the tables saying so until the reader runs them again.
"""
from __future__ import annotations

from .. import measure, pool, quoted, render, state, tasks
from .kit import TOY, Num, at_defaults, claim, grid, judged, log, note, search_html, source, table

CHUNK = 1  # stack steps per streamed chunk, each stepping every model of the table (20 at the defaults): ~15-30 ms in an idle worker
COLUMNS = ("quantity", "ours", "page says", "verdict")
SEED_COLUMNS = ("seed", "task", "tied excess", "untied excess", "ratio")
SLOTS = ("claim", "status", "table", "plot", "seeds")
# A change of a RUN_KEYS field leaves the run's slots pending until the reader presses Run (the one policy:
# app.kit.RunSection, docs/DESIGN.md "Runs"); nothing starts by itself.
RUN_KEYS = ("seeds", "steps", "lr")
_LR = state.BY_KEY["tasks.lr"]
# Every seed count, steps at a few slider positions, lr on a log grid: away from the defaults the
# slots say "not run yet" (cheap); the build's result shows at the defaults.
PLAYBACK = {"seeds": grid("tasks", "seeds", range(1, 11)), "steps": grid("tasks", "steps", (10, 100, 300, 1000, 5000)),
            "lr": grid("tasks", "lr", log(_LR.lo, _LR.hi, 1))}
DEPENDS = {name: RUN_KEYS for name in SLOTS}
CLAIM = "claim"
DATA = ("seeds",)


def empty() -> dict[str, list[dict]]:
    """No runs yet: {task: []} for both tasks."""
    return {name: [] for name in tasks.TASKS}


def collect(runs: dict[str, list[dict]], point: dict) -> bool:
    """File a streamed point's finished run under its task (in place); True when there was one."""
    if "run" not in point:
        return False
    runs[point["task"]].append(point["run"])
    return True


def task_rows(name: str, runs: list[dict], seeds: int, noise: dict | None = None) -> list[list[object]]:
    """Four rows for one task: tied and untied excess, their ratio, the per-seed ratio range; judged with the sd
    of the build's seeds (noise {id: per-seed values}) when the runs are the build's recipe's, else their own."""
    page_tied, page_untied = quoted.PAGE["excess"][name]
    page_lo, page_hi = quoted.PAGE["ratio_range"][name]
    page_range = f"{page_lo:.2f}–{page_hi:.2f}"
    slug = name.lower()
    if not runs:
        return [[f"{name}: {q}", "not run yet", page, "n/a"] for q, page in
                (("tied excess", page_tied), ("untied excess", page_untied), ("ratio tied/untied", quoted.PAGE["ratio"][name]),
                 ("per-seed ratio range", page_range))]
    s = tasks.summary(name, runs, TOY.V, TOY.d)
    done = f"{len(runs)} of {seeds} seeds"
    j = {key: judged(f"tasks.{slug}.{key}", [r[key] for r in runs], (noise or {}).get(f"tasks.{slug}.{key}"))
         for key in ("tied", "untied", "ratio")}
    ratio = quoted.mean_sd([r["ratio"] for r in runs])[0]  # the report's: the mean of the per-seed ratios
    return [
        [f"{name} (entropy {s['entropy']:.3f} nats): tied excess, mean of {done}", Num(f"tasks-{slug}-tied", s["tied"]),
         page_tied, j["tied"]],
        [f"{name}: untied excess", Num(f"tasks-{slug}-untied", s["untied"]), page_untied, j["untied"]],
        [f"{name}: ratio tied/untied, mean of the per-seed ratios", Num(f"tasks-{slug}-ratio", ratio),
         quoted.PAGE["ratio"][name], j["ratio"]],
        [f"{name}: per-seed ratio range", (Num(f"tasks-{slug}-rmin", s["ratio_min"]), Num(f"tasks-{slug}-rmax", s["ratio_max"])),
         page_range, quoted.same_side_of_one(s["ratio_min"], s["ratio_max"], page_lo, page_hi)]]


def param_rows() -> list[list[object]]:
    """The parameter counts and the V*d tying removes, as a share of each total (both are quoted)."""
    c, page = tasks.parameter_counts(TOY.V, TOY.d), quoted.PAGE["toy_saving"]
    return [
        ["parameters, tied", Num("tasks-params-tied", c["tied"]), "", ""],
        ["parameters, untied", Num("tasks-params-untied", c["untied"]), "", ""],
        ["V·d / untied total (tied has this share fewer)", Num("tasks-saving", c["saving"]), page,
         judged("tasks.saving", [c["saving"]])],
        ["V·d / tied total (untied has this share more)", Num("tasks-saving-of-tied", c["saving_of_tied"]), page,
         judged("tasks.saving_of_tied", [c["saving_of_tied"]])]]


def summary_rows(runs: dict[str, list[dict]], seeds: int) -> list[list[object]]:
    """Every row of the excess-loss table for the runs so far."""
    return [r for name in tasks.TASKS for r in task_rows(name, runs[name], seeds, runs.get("noise"))] + param_rows()


def claim_html(runs: dict[str, list[dict]]) -> str:
    """The page's claim: tying costs nothing on the aligned task and costs on the misaligned one (ratio
    tied / untied excess loss, mean of the per-seed ratios)."""
    parts = []
    for name in tasks.TASKS:
        ratio = [r["ratio"] for r in runs[name]]
        ours = render.num(quoted.mean_sd(ratio)[0], 3) if ratio else "not run yet"
        parts.append((f"{name.capitalize()} task: excess loss tied / untied", ours, quoted.PAGE["ratio"][name],
                      judged(f"tasks.{name.lower()}.ratio", ratio) if ratio else "n/a"))
    return claim(parts, "tasks-claim")


def summary_table(rows: list[list[object]], st: state.Tasks) -> str:
    """The excess-loss table as HTML."""
    return table(COLUMNS, rows, f"Excess loss (nats above each task's own entropy) after {st.steps} steps at lr "
                 f"{render.num(st.lr)}, tied vs untied, V = {TOY.V}, d = {TOY.d}", "tasks-table")


def seed_rows(runs: dict[str, list[dict]]) -> list[list[object]]:
    """One row per finished (seed, task) run, in the order they finished."""
    rows = [[r["seed"], name, Num(f"tasks-s{r['seed']}-{name.lower()}-tied", r["tied"]),
             Num(f"tasks-s{r['seed']}-{name.lower()}-untied", r["untied"]),
             Num(f"tasks-s{r['seed']}-{name.lower()}-ratio", r["ratio"])] for name in tasks.TASKS for r in runs[name]]
    return sorted(rows, key=lambda r: r[0])


def seed_table(rows: list[list[object]]) -> str:
    """The per-seed runs as HTML."""
    return table(SEED_COLUMNS, rows, "Per seed (model init and batches): excess loss and the tied/untied ratio",
                 "tasks-seed-table")


def iter_runs(st: state.Tasks, chunk: int = CHUNK):
    """tasks.iter_runs for st: progress dicts every chunk of stack steps, then one carrying "run" per pair."""
    return tasks.iter_runs(range(st.seeds), st.steps, st.lr, TOY.V, TOY.d, chunk=chunk)


steps = iter_runs  # the Run (app.kit.RunSection): every seed's models as one stack


def total(st: state.Tasks) -> int:
    """The Run's steps: every model's (seeds x tasks x tied and untied) SGD steps."""
    return st.seeds * len(tasks.TASKS) * 2 * st.steps


def results(st: state.Tasks) -> dict[str, list[dict]]:
    """Every seed's runs at once, {task: [run]} (the chunk size changes no number: one chunk per run); at the
    recipe in use also {"noise": the build's seeds of every tasks id (measure.spread)}, whose sd judges them."""
    runs = empty()
    for point in iter_runs(st, chunk=st.steps):
        collect(runs, point)
    if not at_defaults(st, ("steps", "lr")):
        return runs
    return {**runs, "noise": measure.spread("tasks")}


def status(st: state.Tasks, runs: dict[str, list[dict]]) -> str:
    """Where the run stands: not run for these settings, how many seeds are in, or all done."""
    done = min(len(runs[name]) for name in tasks.TASKS)
    if not any(runs[name] for name in tasks.TASKS):
        return note(f"Not run yet for these settings: Run trains {st.seeds * len(tasks.TASKS) * 2} models of "
                    f"{st.steps} steps here in your browser (a few seconds).", testid="tasks-now")
    text = f"All {st.seeds} seeds done." if done >= st.seeds else f"{done} of {st.seeds} seeds done so far."
    return note(text, testid="tasks-now") + source(runs, "tasks-source")


def plot(runs: dict[str, list[dict]]) -> str:
    """Per-seed ratios per task beside the page's per-seed range (inline SVG) and its text."""
    text = "; ".join(f"{name}: per-seed ratios {', '.join(render.num(r['ratio'], 3) for r in runs[name]) or 'none yet'}"
                     for name in tasks.TASKS)
    return (render.strips({name: [r["ratio"] for r in runs[name]] for name in tasks.TASKS}, quoted.PAGE["ratio_range"],
                     "Per-seed ratio tied/untied excess loss (shaded: the page's per-seed range)",
                     "excess loss, tied / untied", rule=1.0, alt=text + ".")
            + note(plot_said(runs), testid="tasks-plot-text"))


def plot_said(runs: dict[str, list[dict]]) -> str:
    """The plot's caption: how to read it, then what it shows, per task the seeds under 1 (where tying helped)."""
    key = "A dot per seed; shaded, the page's range; under the dashed line at 1, tying helped"
    done = [(name.lower(), [r["ratio"] for r in runs[name]]) for name in tasks.TASKS if runs[name]]
    if not done:
        return key + "."
    return key + ": here " + " and ".join(f"for {sum(r < 1 for r in ratios)} of {len(ratios)} {name} seeds"
                                          for name, ratios in done) + "."


def slots(st: state.Tasks, results: dict[str, list[dict]] | None = None) -> dict[str, str]:
    """The section's output for st from the runs so far (none: every table says not run yet)."""
    runs = results or empty()
    return {"claim": claim_html(runs) + search_html("tasks", st, ("steps", "lr")), "status": status(st, runs), "table": summary_table(summary_rows(runs, st.seeds), st),
            "plot": plot(runs), "seeds": seed_table(seed_rows(runs))}


# ---- a Run split across workers (weighttying.pool) ----

def split(st: state.Tasks, n: int) -> list[dict]:
    """The Run's (seed, task) pairs in at most n balanced parts: {"pairs": [[seed, task]]}."""
    return [{"pairs": p} for p in pool.balanced([[s, name] for s in range(st.seeds) for name in tasks.TASKS], n)]


def iter_part(st: state.Tasks, part: dict):
    """iter_runs for the part's pairs alone (a pair's numbers do not depend on the pairs it trains with)."""
    return tasks.iter_runs(range(st.seeds), st.steps, st.lr, TOY.V, TOY.d, chunk=CHUNK, pairs=part["pairs"])


def merge(st: state.Tasks, streams: list[list[dict]]) -> dict[str, list[dict]]:
    """The runs the parts have finished, filed as one Run files them (by task, in seed order)."""
    runs = empty()
    for point in sorted((p for s in streams for p in s if "run" in p), key=lambda p: p["seed"]):
        collect(runs, point)
    return runs
