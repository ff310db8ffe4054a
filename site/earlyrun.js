// A Run before Panel. A section whose Run runs the reader's own code (the code lab's: config.early_runs, from
// weighttying.early.emitted) is run from its editor's bar (controls.editor_still, codelab.js) before its live section
// is there too, so the reader's code is checked as soon as one numerics worker is up, not after Panel's boot. The Run
// goes whole to a worker of the page's pool (pool.js; weighttying.early.Run), which draws the section's slots with
// each batch as the live section would.
// That worker ran the reader's code, so what it sends is untrusted: each answer's slots go into the page only
// through inert.js, all of them or none. When the live section takes over, its Python takes the Run's batches in as
// its results (schedule.js sends them with the state: app.kit.runsection.adopt), so it shows the same bytes; a
// section with a Run in flight is handed over once the Run is over (handover.js asks running()).
import { inert } from "./inert.js";
import { $ } from "./dom.js";
import { playerOf } from "./player.js";

export const SAID = {
  going: "Running your code on a worker of its own, here in your browser (Python starts first if it has not loaded)…",
  done: "Done. Checked live in your browser by this page's own code, on a worker of its own, before the rest of the " +
    "live lab had loaded.",
  paused: "The live lab is not loaded (data saver): press “Load the live lab” above, then Run.",
  none: "This browser could not start a worker for your code, so it cannot run here: the text and the named bugs' " +
    "results still read.",
  // a worker that began to start and failed, in its own words (a file missing or modified, named)
  failed: (why) => `Your code cannot run here: its worker could not start (${why}). The text and the named bugs' ` +
    "results still read.",
  moved: "Settings changed: the Run was stopped. Press Run to run with the new settings.",
  late: "The live section took over before your Run ended, so it was stopped: press Run again.",
  // the section's player line, over the table's "Computed at build", while the slots show the Run's answer
  shown: "Checked live in your browser by this page's own code (NumPy, in a worker of its own) when you pressed Run; " +
    "its controls take over when Python has loaded.",
};

/** What the section says of an answer it would not show (WHY: inert.js's reason). */
export const refused = (why) => `Your Run's result was not shown: ${why}. The worker that ran your code drew what ` +
  "this page never draws, so your code must have changed how it draws; nothing of that answer was put in the page.";
// How long a section's hand-over waits for its Run before Panel: the code lab's race takes seconds, even in WebKit
export const HOLD_MS = 60_000;
// A points message's text at most: one answer's slots (the vocabulary's max_chars) and its batch, never parsed beyond
const TEXT_FACTOR = 2;

function shapedAnswer(text, maxChars) {
  // A points message's text as {batch (its text), part (parsed), slots}, or why it is not the shape the worker sends.
  if (text.length > TEXT_FACTOR * maxChars) throw new Error(`it is ${(text.length / 1e6).toFixed(1)} MB of text`);
  const answer = JSON.parse(text), part = typeof answer?.batch === "string" ? JSON.parse(answer.batch) : null;
  const named = ([name, html]) => /^[a-z][\w-]*$/.test(name) && typeof html === "string";
  if (!part || !Array.isArray(part.points) || typeof answer.slots !== "object"
    || !Object.entries(answer.slots || {}).every(named)) throw new Error("its answer was not the shape this page reads");
  return { batch: answer.batch, part, slots: answer.slots };
}

export class EarlyRun {
  runs = new Map(); // sid -> {id, query, started, batches, over, error, shown}: each section's latest Run
  kept = new Map(); // sid -> {query, batches, handed}: its latest Run that ended with its answer shown, for Python
  shown = 0; // answers put into the page
  refusals = []; // {sid, why}: answers refused whole (inert.js)
  #waiting = []; // the resolvers of answered()'s promises
  #ids = 0; // this page's run ids, negative (the Panel worker's pooled Runs count up from 1)
  #slots = new Map(); // sid -> {slot name -> its element in the prerender}, found before any answer was put in

  // config: the build's (early_runs, vocabulary); pool: pool.js's; player: player.js's (query); address: address.js's
  // (carried); paused(): the lab waits for the reader's go; ended(): a Run is over (the scheduler sends it to Python).
  constructor({ config, pool, player, address, paused, ended }) {
    Object.assign(this, { config, pool, player, address, paused, ended });
  }

  owns(run) {
    // Whether RUN (a pool message's) is one of this page's Runs before Panel.
    return [...this.runs.values()].some((r) => r.id === run);
  }

  running(sid) {
    // Whether section sid's Run is still going (its hand-over waits), at most HOLD_MS: then it is stopped.
    const r = this.runs.get(sid);
    if (r && !r.over && performance.now() - r.started > HOLD_MS) this.#stop(sid, r, SAID.late);
    return !!r && !r.over;
  }

  answered() {
    // A promise: no Run of this page waits for its first answer (each has shown one, or is over).
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#wake();
    });
  }

  #wake() {
    if ([...this.runs.values()].some((r) => !r.over && !r.shown)) return;
    this.#waiting.splice(0).forEach((resolve) => resolve());
  }

  start(sid) {
    // Section sid's Run before its live section: its setting and the reader's code now; one in flight is dropped.
    const say = (text, kind) => this.#say(sid, text, kind);
    if (!(this.config.early_runs || {})[sid]) throw new Error(`earlyrun.js: section ${sid} has no Run before Panel`);
    if (this.paused()) return say(SAID.paused, "wt-bad");
    if (!this.pool.size) return say(this.#none(), "wt-bad");
    const before = this.runs.get(sid);
    if (before && !before.over) this.pool.cancel({ run: before.id });
    const id = -(this.#ids += 1);
    const query = this.player.query(sid);
    this.runs.set(sid, { id, query, started: performance.now(), batches: [], over: false, error: "", shown: false });
    const spec = JSON.stringify({ section: sid, query, carried: this.address.carried([sid]) });
    say(SAID.going);
    this.pool.run({ sid, run: id, parts: [spec], quiet_s: this.config.early_runs[sid].quiet_s });
  }

  heard({ kind, sid, run, text }) {
    // The pool's word on one of this page's Runs (pool.js: points, error, retry, failed).
    const r = this.runs.get(sid);
    if (!r || r.id !== run || r.over) return; // a Run dropped for a newer one
    if (kind === "points") return this.#points(sid, r, text);
    if (kind === "retry") return this.#say(sid, text);
    this.#stop(sid, r, kind === "error" ? `Stopped: ${text}` : this.#none());
  }

  #none() {
    // Why no worker runs the reader's code: the pool's failure in its own words, or none could be made.
    return this.pool.reason ? SAID.failed(this.pool.reason) : SAID.none;
  }

  handOut(sids) {
    // {sid: its kept Run's batches} of sections sids whose kept Run is not yet sent to Python and was run at the
    // setting the section shows (else the section's own results belong to it); marked sent.
    const out = {};
    for (const sid of this.#unsent(sids)) {
      const k = this.kept.get(sid);
      k.handed = true;
      if (k.query === this.player.query(sid)) out[sid] = k.batches;
    }
    return out;
  }

  pending(sids) {
    // Whether a kept Run of sections sids is not yet sent to Python.
    return this.#unsent(sids).length > 0;
  }

  #unsent(sids) {
    return sids.filter((sid) => this.kept.has(sid) && !this.kept.get(sid).handed);
  }

  #stop(sid, r, said) {
    // Run r of section sid is over without its answer (an error, a refusal, a setting changed, the hand-over): said.
    if (!r.over) this.pool.cancel({ run: r.id });
    Object.assign(r, { over: true, error: said });
    this.#wake();
    this.#say(sid, said, "wt-bad");
    setTimeout(this.ended, 0); // not from inside the scheduler's pump, which asks running() mid-hand-over
  }

  #points(sid, r, text) {
    // A batch and the slots drawn from every point so far: the slots in place (all or none), the batch kept.
    if (this.player.query(sid) !== r.query) return this.#stop(sid, r, SAID.moved); // its answer is another setting's
    let answer;
    try {
      answer = shapedAnswer(text, this.config.vocabulary.max_chars);
      if (answer.slots) this.#show(sid, answer.slots); // null: nothing new to show yet
    } catch (err) {
      this.refusals.push({ sid, why: err.message });
      return this.#stop(sid, r, refused(err.message));
    }
    r.batches.push(answer.batch);
    r.shown ||= !!answer.slots;
    this.#wake();
    const { part } = answer, last = part.points[part.points.length - 1];
    // the verdict this Run's slots show, said again under Run (on a phone the verdict slot is screens below it)
    const verdict = r.shown && this.#slots.get(sid)?.get("verdict") ? `${this.#slots.get(sid).get("verdict").textContent.trim()} ` : "";
    if (!part.done) {
      return this.#say(sid, verdict + (last && last.total ? `Step ${part.step} of ${last.total}…` : SAID.going));
    }
    r.over = true;
    if (r.shown) this.kept.set(sid, { query: r.query, batches: r.batches, handed: false });
    this.#say(sid, verdict + SAID.done);
    this.ended();
  }

  #show(sid, slots) {
    // Every slot checked first (inert.js throws at the first thing refused), then put in, in one go, each into the
    // prerender's own slot element: found once, before anything was put in, so a slot drawn inside another (a class
    // and data-slot are words the renderer writes) is never taken for it.
    const section = $(`live-${sid}`);
    if (!section || section.dataset.live) return; // the live section took over meanwhile
    const total = Object.values(slots).reduce((n, html) => n + html.length, 0), most = this.config.vocabulary.max_chars;
    if (total > most) throw new Error(`it is ${(total / 1e6).toFixed(1)} MB, over this page's ${most / 1e6} MB for one answer`);
    const checked = Object.entries(slots).map(([name, html]) => [name, inert(html, this.config.vocabulary)]);
    // (a restart puts the prerender back, new elements: found again then)
    if (![...(this.#slots.get(sid) || new Map()).values()].some((el) => el.isConnected)) {
      const own = section.querySelectorAll(".wt-prerender .wt-slot[data-slot]");
      this.#slots.set(sid, new Map([...own].map((el) => [el.dataset.slot, el])));
    }
    for (const [name, nodes] of checked) {
      const slot = this.#slots.get(sid).get(name);
      if (!slot) continue;
      slot.replaceChildren(nodes);
      slot.dataset.frag = "live"; // no table fragment: the player's next answer replaces it
      slot.classList.remove("wt-approx");
    }
    const player = playerOf(sid);
    if (player) {
      Object.assign(player.dataset, { approx: "false", early: "true" });
      player.querySelector(".wt-player-status").textContent = SAID.shown;
    }
    this.shown += 1;
  }

  #say(sid, text, kind = "") {
    // The Run's status line, under its button (the editor's bar).
    const line = document.querySelector(`[data-run-said="${sid}"]`);
    if (!line) return;
    line.textContent = text;
    line.classList.toggle("wt-bad", kind === "wt-bad");
  }
}
