// Playback before Python. Each playable section is prerendered with native controls (weighttying.controls);
// this module answers them from the section's playback table (weighttying.playback: the section's own slots computed
// at build, in CPython, for every point of its grid) by swapping the HTML of its [data-slot] elements, until the live
// lab replaces the section. A value off the grid (typed into a number box, or a control the tables do not cover)
// shows the nearest precomputed answer, marked as approximate; the live lab then boots from the URL, which every
// change here has the page's address bar (address.js) write, exactly as the live lab's values are written. Values are
// read, clamped, written and filled in by the page's state rules (site/state.js over the data weighttying.state
// emits). A table that is missing or modified (its sha256 is not the one in the page's config) is named in the
// section, which then waits for the live lab. A control's kind says how its value is read, whether a link holds it
// and at which event it is taken (its row of the rules, state.Kind); its input form says how a value goes into its
// box and out of it (FORMS). Player holds what the controls say; Answers, what each section shows for it; tables.js,
// the tables.
import { fill, fmt } from "./state.js";
import { Tables } from "./tables.js";

export function nearest(values, v, log) {
  // The index of the grid value nearest v (in log space for a log control).
  const f = log ? (x) => Math.log(Math.max(Number(x), 1e-300)) : Number;
  let best = 0;
  values.forEach((x, i) => { if (Math.abs(f(x) - f(v)) < Math.abs(f(values[best]) - f(v))) best = i; });
  return best;
}

export function asRead(fills, st, defaults) {
  // The state as the tables and the URL hold it: a choice showing its own fill is the choice alone, its
  // fields at their defaults (the live lab's reconcile fills them in again from it).
  const out = { ...st };
  for (const [key, { by }] of Object.entries(fills)) {
    const want = by[st[key]];
    if (want && Object.entries(want).every(([f, v]) => st[f] === v)) Object.keys(want).forEach((f) => { out[f] = defaults[f]; });
  }
  return out;
}

export function lookup(table, st, controls) {
  // {at: {key: index into the table's values}, approx: [[label, wanted, shown]]} for section state st: exact on
  // the grid, else the nearest grid value (a key the table does not cover shows its default); label: the control's
  // name as the reader reads it.
  const at = {}, approx = [];
  for (const c of controls) {
    const i = table.keys.indexOf(c.name), v = st[c.name];
    if (i < 0) {
      if (v !== c.default) approx.push([c.label, v, c.default]);
      continue;
    }
    at[c.name] = table.values[i].indexOf(v);
    if (at[c.name] < 0) {
      at[c.name] = typeof v === "number" ? nearest(table.values[i], v, c.log) : table.values[i].indexOf(c.default);
      approx.push([c.label, v, table.values[i][at[c.name]]]);
    }
  }
  return { at, approx };
}

export function fragment(table, slot, at) {
  // The id of the fragment slot shows at grid position at (the table's row-major index over the slot's keys).
  const { keys, index } = table.at[slot];
  return String(index[keys.reduce((flat, k) => flat * table.values[table.keys.indexOf(k)].length + at[k], 0)]);
}

export function takes(kind, input, event) {
  // Whether EVENT on INPUT, a box of a control of KIND, gives the control a value: the kind's event (state.Kind.event),
  // except a slider's, which answers while it moves.
  return event.type === (input.type === "range" ? "input" : kind.event);
}

export function said(says, name, blanks = {}) {
  // Status line NAME of says (weighttying.controls.SAYS) with its {blanks} filled in, as Python's str.format fills them.
  return says[name].replace(/\{(\w+)\}/g, (_, k) => blanks[k]);
}

const grid = (ctl) => { const r = ctl.querySelector("input[type=range]"); return r ? JSON.parse(r.dataset.grid) : null; };
const read = (ctl, c, input, rules) => rules.read(c, input.value).value; // a value as a link's would be read
const typed = (ctl, c, input) => input.value; // free text: taken as typed, up to the box's maxlength

// Each input form of the playback (state.Kind.input; weighttying.controls.INPUTS draws the same forms): put(ctl, c, v)
// puts a value into control c's box ctl; take(ctl, c, input, rules) takes one from the input the reader moved. Free
// text and a file are never in a link, so nothing is put back into them: the address carries them to the live lab.
export const FORMS = {
  number: {
    put(ctl, c, v) { // the slider goes to the nearest grid position
      const range = ctl.querySelector("input[type=range]"), box = ctl.querySelector("input[type=number]");
      box.value = fmt(v);
      if (range) {
        range.value = String(nearest(grid(ctl), v, c.log));
        range.setAttribute("aria-valuetext", fmt(v));
      }
    },
    take: (ctl, c, input, rules) => rules.read(c, input.type === "range" ? grid(ctl)[Number(input.value)] : input.value).value,
  },
  checkbox: { put: (ctl, c, v) => { ctl.querySelector("input").checked = v; }, take: (ctl, c, input) => input.checked },
  select: { put: (ctl, c, v) => { ctl.querySelector("select").value = v; }, take: read },
  text: { put: (ctl, c, v) => { ctl.querySelector("input").value = v; }, take: read },
  textarea: { take: typed },
  line: { take: typed },
  code: { take: typed }, // the editor (codelab.js) writes its text into the box
  // a file: read here as the live lab's picker reads it (rules.decoded), the box saying what it read or why not; a
  // promise of its text (null: refused, or none chosen)
  file: { take: (ctl, c, input, rules) => readFile(rules, ctl, rules.kind(c).max_chars, input.files && input.files[0]) },
};

async function readFile(rules, ctl, limit, file) {
  // The text of FILE (none: null) as rules.decoded reads it, what it read or why not said in the box CTL.
  const line = ctl.querySelector(".wt-file-said");
  if (!file) return null;
  const { text, problem } = rules.decoded(new Uint8Array(await file.slice(0, limit + 1).arrayBuffer()), limit, file.size);
  line.classList.toggle("wt-bad", !!problem);
  line.classList.toggle("wt-help", !problem);
  line.textContent = problem || rules.said("read", { name: file.name, chars: [...text].length.toLocaleString("en-US") });
  return text;
}

export const playerOf = (sid) => document.querySelector(`.wt-player[data-section="${sid}"]`);
const ctlOf = (el, key) => el.querySelector(`.wt-pctl[data-key="${key}"]`);

class Answers {
  // What a section shows from its table for the player's state: its slots' fragments, and its status line.
  approx = {}; // section id -> [[label, wanted, shown]] when the answer on screen is the nearest one
  answered = 0; // slot swaps made from a table
  lastAnswerAt = 0; // performance.now() of the latest one
  #player; // the Player whose state, tables and controls are answered
  #says; // the status lines' words (the page config's, weighttying.controls.SAYS)
  #paused; // (): whether the live lab waits for the reader's go
  #played; // (sid, off): early.js is told of each answer (off the grid: it may answer live before Panel)

  constructor(player, says, { paused, played }) {
    this.#player = player;
    this.#says = says;
    this.#paused = paused;
    this.#played = played;
  }

  play(sid) {
    // Show the table's answer for the section's state: exact on the grid, else the nearest, marked.
    const el = playerOf(sid), t = this.#player.tables[sid];
    if (!el || !this.#player.state[sid]) return;
    if (!t) return this.status(sid);
    const { at, approx } = lookup(t, this.#player.stateAsRead(sid), this.#player.controls(sid));
    const section = el.closest(".wt-live") || document;
    for (const name of t.slots) {
      const frag = fragment(t, name, at);
      const slot = section.querySelector(`.wt-slot[data-slot="${name}"]`);
      if (!slot) continue;
      // A slot records the fragment it shows; one without a record is the prerender, the default's answer.
      if (slot.dataset.frag === undefined && this.#player.isDefault(sid)) slot.dataset.frag = frag;
      if (slot.dataset.frag !== frag) {
        slot.innerHTML = t.fragments[frag];
        slot.dataset.frag = frag;
        this.answered += 1;
        this.lastAnswerAt = performance.now();
      }
      slot.classList.toggle("wt-approx", approx.length > 0);
    }
    this.approx[sid] = approx;
    el.dataset.approx = String(approx.length > 0);
    this.status(sid);
    this.#played(sid, approx.length > 0);
  }

  status(sid) {
    // The section's status line: why its table failed, that it is on its way, that the reader's text waits for the
    // live lab, that the answer is the nearest one, or that it was computed at build.
    const el = playerOf(sid), player = this.#player;
    if (!el) return;
    const line = el.querySelector(".wt-player-status"), approx = this.approx[sid] || [];
    const later = this.#says.later[this.#waiting()];
    el.dataset.held = "false";
    if (player.errors[sid]) {
      line.textContent = this.#say("failed", { error: player.errors[sid], later });
      el.dataset.error = "true";
    } else if (!player.tables[sid] && !player.isDefault(sid)) {
      line.textContent = this.#say("fetching");
    } else if (player.held(sid)) {
      line.textContent = this.#say("held", { later });
      el.dataset.held = "true";
    } else if (approx.length) {
      const wanted = approx.map(([k, v]) => `${k} = ${fmt(v)}`).join(", ");
      const near = approx.map(([k, , shown]) => `${k} = ${fmt(shown)}`).join(", ");
      line.textContent = this.#say("approx", { wanted, near, later });
    } else {
      line.textContent = this.#say("computed", { takes_over: this.#says.takes_over[this.#waiting()] });
    }
  }

  #waiting() {
    return this.#paused() ? "paused" : "loading";
  }

  #say(name, blanks) {
    return said(this.#says, name, blanks);
  }
}

export class Player {
  // The playback's controls: what they say (state), read from the URL (sync) and from the reader's moves, each move
  // written to the address (address.js) and answered from the tables (Answers).
  state = {}; // section id -> {key: value}, what the controls say
  #rules; // site/state.js's Codec of the page's rules
  #address; // the address bar's one writer (address.js)
  #playerMoved; // (): the live lab takes what the player wrote to the URL (main.js)
  #answers; // what each section shows (Answers)
  #tables; // the sections' tables (tables.js)

  constructor(config, rules, transport, { address, embed, paused, played, playerMoved }) {
    // transport: where files come from (boot.js); embed: the one section shown, if any (page.js). The live lab is
    // made after the player (it restarts it: sync), so it is reached by callbacks (main.js): paused(), whether it waits
    // for the reader's go; played(sid, off), early.js's; playerMoved().
    this.#rules = rules;
    this.#address = address;
    this.#playerMoved = playerMoved;
    this.#answers = new Answers(this, config.says, { paused, played });
    this.#tables = new Tables(config.playback || {}, transport, embed,
      { parsed: (sid) => this.play(sid), failed: (sid) => this.#answers.status(sid) });
    // delegated, so a prerender put back after a restart works too
    document.addEventListener("input", (event) => this.#changed(event));
    document.addEventListener("change", (event) => this.#changed(event));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => this.sync(), { once: true });
    else this.sync();
  }

  // The tables' and the answers' records, read here (the page's hook: docs/DESIGN.md)
  get tables() { return this.#tables.tables; }
  get errors() { return this.#tables.errors; }
  get loaded() { return this.#tables.loaded; }
  get approx() { return this.#answers.approx; }
  get answered() { return this.#answers.answered; }
  get lastAnswerAt() { return this.#answers.lastAnswerAt; }

  play(sid) {
    this.#answers.play(sid);
  }

  query(sid) {
    // Section sid's setting as a link writes it (site/early.js).
    return this.#rules.toQuery(this.#linkValues(sid));
  }

  controls(sid) {
    // The controls played back: a kind a link never holds (free text, a file) is read by the live lab alone.
    const el = playerOf(sid);
    return this.#rules.section(sid).filter((c) => this.#rules.kind(c).url && el && ctlOf(el, c.name));
  }

  isDefault(sid) {
    return !this.state[sid] || this.controls(sid).every((c) => this.state[sid][c.name] === c.default);
  }

  held(sid) {
    // The section shows the choice the reader's own text selects, and the address holds that text for the live lab.
    return this.controls(sid).some((c) => c.own && this.state[sid][c.name] === c.own)
      && Object.keys(this.#address.carried([sid])).some((key) => this.#rules.kind(this.#rules.byKey.get(key)).own);
  }

  stateAsRead(sid) {
    // Section sid's state as the tables and a link hold it (a choice showing its own fill is the choice alone).
    return asRead(this.#rules.fills(sid), this.state[sid], this.#defaults(sid));
  }

  sync() {
    // Every section's controls and slots from the URL (at load, and when a restarted lab put the prerender back).
    this.#address.reread(); // what the URL says now is the players' state
    const { values } = this.#rules.parseQuery(location.search);
    for (const el of document.querySelectorAll(".wt-player[data-section]")) {
      const sid = el.dataset.section, st = (this.state[sid] = {});
      for (const c of this.controls(sid)) {
        st[c.name] = values[c.key];
        this.#show(sid, c.name, st[c.name]);
      }
      this.#settle(sid, "");
      if (!this.isDefault(sid)) this.#tables.need(sid);
      this.play(sid);
    }
  }

  #linkValues(sid) {
    // {key: value} of section sid as a link holds it
    const st = this.stateAsRead(sid);
    return Object.fromEntries(this.controls(sid).map((c) => [c.key, st[c.name]]));
  }

  #defaults(sid) {
    return Object.fromEntries(this.#rules.section(sid).map((c) => [c.name, c.default]));
  }

  #settle(sid, changed) {
    // changed: the key the reader just set, or "" for a state read from the URL (state.fill, the live lab's rule)
    const st = this.state[sid];
    for (const [k, v] of Object.entries(fill(this.#rules.fills(sid), st, this.#defaults(sid), changed))) {
      st[k] = v;
      this.#show(sid, k, v);
    }
  }

  #show(sid, key, v) {
    // Put a value into a control's inputs.
    const c = this.#rules.byKey.get(`${sid}.${key}`);
    FORMS[this.#rules.kind(c).input].put(ctlOf(playerOf(sid), key), c, v);
  }

  #changed(event) {
    // An input of a playback control moved: taken at its kind's event, a value a link holds played back, any other
    // kept for the live lab.
    const input = event.target, ctl = input.closest && input.closest(".wt-pctl[data-key]");
    const el = ctl && ctl.closest(".wt-player[data-section]");
    if (!el) return;
    const sid = el.dataset.section, c = this.#rules.byKey.get(`${sid}.${ctl.dataset.key}`), kind = this.#rules.kind(c);
    if (!takes(kind, input, event)) return;
    const v = FORMS[kind.input].take(ctl, c, input, this.#rules);
    if (kind.url) this.#moved(sid, c.name, v);
    else Promise.resolve(v).then((text) => this.#keep(sid, c, text));
  }

  #moved(sid, key, taken) {
    // The reader set a value a link holds: played back at once, then written to the address, which the lab follows.
    const v = taken === null ? this.state[sid][key] : taken; // not a usable number: the box shows the value kept
    this.state[sid][key] = v;
    this.#show(sid, key, v);
    this.#settle(sid, key);
    this.#tables.need(sid);
    this.play(sid);
    const q = this.#address.query;
    if (this.#address.fromPlayer(sid, this.#linkValues(sid)) && this.#address.query !== q) this.#playerMoved();
  }

  #keep(sid, c, v) {
    // Control c's value v (null: none) of section sid, one no link holds, to the address for the live lab (which
    // follows). The reader's own text (a paste, a file) replaces the section's others and selects the choice the
    // section declares for it, as the live section does; the status line then says whether it waits.
    const own = this.#rules.kind(c).own;
    if (v !== null) {
      const linked = own && v ? this.#selectOwn(sid) : {};
      const others = own ? this.#rules.section(sid).filter((o) => o !== c && this.#rules.kind(o).own) : [];
      const vals = { ...linked, ...Object.fromEntries(others.map((o) => [o.key, o.default])), [c.key]: v };
      if (this.#address.fromPlayer(sid, vals)) this.#playerMoved();
    }
    if (own) this.play(sid); // after the address holds the text (or not)
  }

  #selectOwn(sid) {
    // The reader's text selects the choice its section declares for it (state.spec own=); returns the section's link
    // values, for the address.
    for (const o of this.controls(sid).filter((o) => o.own)) {
      this.state[sid][o.name] = o.own;
      this.#show(sid, o.name, o.own);
    }
    this.#tables.need(sid);
    return this.#linkValues(sid);
  }
}
