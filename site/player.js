// Playback before Python. Each playable section is prerendered with native controls (weighttying.controls);
// this module answers them from the section's playback table (weighttying.playback: the section's own
// slots computed at build, in CPython, for every point of its grid) by swapping the HTML of its
// [data-slot] elements, until the live lab replaces the section. A value off the grid (typed into a
// number box, or a control the tables do not cover) shows the nearest precomputed answer, marked as
// approximate; the live lab then boots from the URL, which every change here has the page's address bar
// (address.js) write, exactly as the live lab's values are written. Values are read, clamped, written and filled in by the page's state rules (site/state.js over
// the data weighttying.state emits). A table that is missing or modified (its sha256 is not the one in the
// page's config) is named in the section, which then waits for the live lab. State: P below (docs/DESIGN.md).
import { fill, fmt } from "./state.js";
import { fetchChecked } from "./fetched.js";

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
  // {at: {key: index into the table's values}, approx: [[key, wanted, shown]]} for section state st: exact on
  // the grid, else the nearest grid value (a key the table does not cover shows its default).
  const at = {}, approx = [];
  for (const c of controls) {
    const i = table.keys.indexOf(c.name), v = st[c.name];
    if (i < 0) {
      if (v !== c.default) approx.push([c.name, v, c.default]);
      continue;
    }
    at[c.name] = table.values[i].indexOf(v);
    if (at[c.name] < 0) {
      at[c.name] = typeof v === "number" ? nearest(table.values[i], v, c.log) : table.values[i].indexOf(c.default);
      approx.push([c.name, v, table.values[i][at[c.name]]]);
    }
  }
  return { at, approx };
}

export function fragment(table, slot, at) {
  // The id of the fragment slot shows at grid position at (the table's row-major index over the slot's keys).
  const { keys, index } = table.at[slot];
  return String(index[keys.reduce((flat, k) => flat * table.values[table.keys.indexOf(k)].length + at[k], 0)]);
}

const grid = (ctl) => { const r = ctl.querySelector("input[type=range]"); return r ? JSON.parse(r.dataset.grid) : null; };

function inputsFor(rules) {
  // Each playback input (state.Kind.input, weighttying.controls.INPUTS): put a value into it, take one from it
  return {
    number: {
      put(ctl, c, v) { // the slider goes to the nearest grid position
        const range = ctl.querySelector("input[type=range]"), box = ctl.querySelector("input[type=number]");
        box.value = fmt(v);
        if (range) {
          range.value = String(nearest(grid(ctl), v, c.log));
          range.setAttribute("aria-valuetext", fmt(v));
        }
      },
      take: (ctl, c, input) => rules.read(c, input.type === "range" ? grid(ctl)[Number(input.value)] : input.value).value,
    },
    checkbox: { put: (ctl, c, v) => { ctl.querySelector("input").checked = v; }, take: (ctl, c, input) => input.checked },
    select: { put: (ctl, c, v) => { ctl.querySelector("select").value = v; }, take: (ctl, c, input) => rules.read(c, input.value).value },
    text: { put: (ctl, c, v) => { ctl.querySelector("input").value = v; }, take: (ctl, c, input) => rules.read(c, input.value).value },
    // free text (never in a link, nothing put back into it): taken as typed, up to the box's maxlength, for the
    // live lab (address.carried)
    textarea: { take: (ctl, c, input) => input.value },
    line: { take: (ctl, c, input) => input.value },
    code: { take: (ctl, c, input) => input.value }, // the editor (codelab.js) writes its text into the box
    // a file (never in a link): read here as the live lab's picker reads it (rules.decoded), the box saying what it
    // read or why not; a promise of its text (null: refused, or none chosen), taken once per choice ("change")
    file: { on: "change", take: (ctl, c, input) => readFile(rules, ctl, rules.kind(c).max_chars, input.files && input.files[0]) },
  };
}

function keeper(rules, address, playerMoved) {
  // (sid, c, v, linked): control c's value v (null: none) of section sid, one no link holds, to the address for the
  // live lab (which follows), with LINKED, link values written beside it. The reader's own text (a paste, a file)
  // replaces the section's others, as the live section does.
  return (sid, c, v, linked = {}) => {
    if (v === null) return;
    const others = rules.kind(c).own ? rules.section(sid).filter((o) => o !== c && rules.kind(o).own) : [];
    if (address.fromPlayer(sid, { ...linked, ...Object.fromEntries(others.map((o) => [o.key, o.default])), [c.key]: v })) playerMoved();
  };
}

async function readFile(rules, ctl, limit, file) {
  // The text of FILE (none: null) as rules.decoded reads it, what it read or why not said in the box CTL.
  const said = ctl.querySelector(".wt-file-said");
  if (!file) return null;
  const { text, problem } = rules.decoded(new Uint8Array(await file.slice(0, limit + 1).arrayBuffer()), limit, file.size);
  said.classList.toggle("wt-bad", !!problem);
  said.classList.toggle("wt-help", !problem);
  said.textContent = problem || rules.said("read", { name: file.name, chars: [...text].length.toLocaleString("en-US") });
  return text;
}

export function said(says, name, blanks = {}) {
  // Status line NAME of says (weighttying.controls.SAYS) with its {blanks} filled in, as Python's str.format fills them.
  return says[name].replace(/\{(\w+)\}/g, (_, k) => blanks[k]);
}

function answers(P, rules, says, { paused, played, held }, { player, controls, defaults }) {
  // What a section shows from its table (play), what its status line says (status: the words of says, the page
  // config's, weighttying.controls.SAYS), what a link holds of it; paused(): the lab waits for the reader's go;
  // played(sid, off): early.js is told of each answer; held(sid): the section shows the reader's own text's choice
  // and holds that text for the live lab.
  const waiting = () => (paused() ? "paused" : "loading");
  const say = (name, blanks) => said(says, name, blanks);
  const later = () => says.later[waiting()];

  function play(sid) {
    // Show the table's answer for the section's state: exact on the grid, else the nearest, marked.
    const el = player(sid), t = P.tables[sid];
    if (!el || !P.state[sid]) return;
    if (!t) return status(sid);
    const { at, approx } = lookup(t, asRead(rules.fills(sid), P.state[sid], defaults(sid)), controls(sid));
    const section = el.closest(".wt-live") || document;
    for (const name of t.slots) {
      const frag = fragment(t, name, at);
      const slot = section.querySelector(`.wt-slot[data-slot="${name}"]`);
      if (!slot) continue;
      // A slot records the fragment it shows; one without a record is the prerender, the default's answer.
      if (slot.dataset.frag === undefined && isDefault(sid)) slot.dataset.frag = frag;
      if (slot.dataset.frag !== frag) {
        slot.innerHTML = t.fragments[frag];
        slot.dataset.frag = frag;
        P.answered += 1;
        P.lastAnswerAt = performance.now();
      }
      slot.classList.toggle("wt-approx", approx.length > 0);
    }
    P.approx[sid] = approx;
    el.dataset.approx = String(approx.length > 0);
    status(sid);
    played(sid, approx.length > 0); // off the grid: live before Panel (early.js)
  }

  const isDefault = (sid) => !P.state[sid] || controls(sid).every((c) => P.state[sid][c.name] === c.default);


  function status(sid) {
    const el = player(sid);
    if (!el) return;
    const line = el.querySelector(".wt-player-status");
    const approx = P.approx[sid] || [];
    el.dataset.held = "false";
    if (P.errors[sid]) {
      line.textContent = say("failed", { error: P.errors[sid], later: later() });
      el.dataset.error = "true";
    } else if (!P.tables[sid] && !isDefault(sid)) {
      line.textContent = say("fetching");
    } else if (held(sid)) {
      line.textContent = say("held", { later: later() });
      el.dataset.held = "true";
    } else if (approx.length) {
      const wanted = approx.map(([k, v]) => `${k} = ${fmt(v)}`).join(", ");
      const near = approx.map(([k, , shown]) => `${k} = ${fmt(shown)}`).join(", ");
      line.textContent = say("approx", { wanted, near, later: later() });
    } else {
      line.textContent = say("computed", { takes_over: says.takes_over[waiting()] });
    }
  }


  function linkValues(sid) {
    // {key: value} of section sid as a link holds it (a choice showing its own fill is the choice alone)
    const st = asRead(rules.fills(sid), P.state[sid], defaults(sid));
    return Object.fromEntries(controls(sid).map((c) => [c.key, st[c.name]]));
  }
  return { play, status, isDefault, linkValues };
}

function loadTables(P, files, transport, embed, play, status) {
  // Every table is downloaded (and checked) at once, but parsed only when its section needs it (a control
  // moved, or the URL's state is not the default) or when the page is idle: parsing megabytes of JSON while
  // the page itself is still being parsed would hold back its first frame. Returns need(sid): a promise of it parsed.
  const parsing = {};
  function need(sid) {
    if (!parsing[sid]) {
      parsing[sid] = P.loaded[sid].then((res) => res.json()).then((table) => { P.tables[sid] = table; play(sid); }, (err) => {
        P.errors[sid] = err.message;
        console.error(`weighttying: playback table of ${sid}: ${err.message}`);
        status(sid);
      });
    }
    return parsing[sid];
  }

  // The classroom file (file://, no server) carries the tables inside: its transport gives each one's blob:
  // URL once the page is parsed and unpacked.
  const located = transport.ready.then(() => transport.url);
  for (const sid of Object.keys(files).filter((s) => !embed || s === embed)) {
    P.loaded[sid] = located.then((url) => fetchChecked(url(files[sid].file), files[sid].integrity, files[sid].file));
    P.loaded[sid].catch(() => need(sid)); // a table that cannot be used is named at once
  }
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
  window.addEventListener("load", () => {
    const rest = Object.keys(P.loaded);
    const next = () => { if (rest.length) need(rest.shift()).then(() => idle(next)); };
    idle(next);
  }, { once: true });
  return need;
}

export function startPlayer(config, rules, transport, { address, embed, paused, played, playerMoved }) {
  // rules: site/state.js's codec of the page's rules; transport: where files come from (boot.js); address: the
  // address bar's one writer (address.js); embed: the one section shown, if any (page.js). The live lab is made
  // after the player (it restarts it: P.sync), so it is reached by callbacks (main.js): paused(), whether it waits
  // for the reader's go; played(sid, off), early.js's; playerMoved(), the lab takes what the player wrote to the URL.
  const files = config.playback || {};
  const P = {
    tables: {}, // section id -> its table, once loaded and checked
    errors: {}, // section id -> why its table could not be used
    state: {}, // section id -> {key: value}, what the controls say
    approx: {}, // section id -> [[key, wanted, shown]] when the answer on screen is the nearest one
    answered: 0, // slot swaps made from a table
    lastAnswerAt: 0, // performance.now() of the latest one
    loaded: {}, // section id -> promise of its checked response (rejects with the reason it is unusable)
    sync, // and play (answers)
  };

  const need = loadTables(P, files, transport, embed, (sid) => play(sid), (sid) => status(sid));

  const players = () => document.querySelectorAll(".wt-player[data-section]");
  const player = (sid) => document.querySelector(`.wt-player[data-section="${sid}"]`);
  const ctlOf = (el, key) => el.querySelector(`.wt-pctl[data-key="${key}"]`);
  // the controls played back: a kind a link never holds (free text, a file) is read by the live lab alone
  const controls = (sid) => rules.section(sid).filter((c) => rules.kind(c).url && ctlOf(player(sid), c.name));
  const defaults = (sid) => Object.fromEntries(rules.section(sid).map((c) => [c.name, c.default]));
  const controlOf = (sid, key) => rules.byKey.get(`${sid}.${key}`);
  const inputs = inputsFor(rules), kept = keeper(rules, address, playerMoved);
  const held = (sid) => controls(sid).some((c) => c.own && P.state[sid][c.name] === c.own)
    && Object.keys(address.carried([sid])).some((key) => rules.kind(rules.byKey.get(key)).own);
  const { play, status, isDefault, linkValues } = answers(P, rules, config.says, { paused, played, held }, { player, controls, defaults });
  P.play = play;
  P.query = (sid) => rules.toQuery(linkValues(sid)); // section sid's setting as a link writes it (site/early.js)

  function settle(sid, changed) {
    // changed: the key the reader just set, or "" for a state read from the URL (state.fill, the live lab's rule)
    const st = P.state[sid];
    for (const [k, v] of Object.entries(fill(rules.fills(sid), st, defaults(sid), changed))) {
      st[k] = v;
      show(sid, k, v);
    }
  }

  function show(sid, key, v) {
    // Put a value into a control's inputs.
    const c = controlOf(sid, key);
    inputs[rules.kind(c).input].put(ctlOf(player(sid), key), c, v);
  }

  function sync() {
    // Every section's controls and slots from the URL (at load, and when a restarted lab put the prerender back).
    address.reread(); // what the URL says now is the players' state
    const { values } = rules.parseQuery(location.search);
    for (const el of players()) {
      const sid = el.dataset.section, st = (P.state[sid] = {});
      for (const c of controls(sid)) {
        st[c.name] = values[c.key];
        show(sid, c.name, st[c.name]);
      }
      settle(sid, "");
      if (P.loaded[sid] && !isDefault(sid)) need(sid);
      play(sid);
    }
  }

  function selectOwn(sid) {
    // The reader's text (a paste, a file) selects the choice its section declares for it (state.spec own=), as the
    // live section does; returns the section's link values, for the address.
    for (const o of controls(sid).filter((o) => o.own)) {
      P.state[sid][o.name] = o.own;
      show(sid, o.name, o.own);
    }
    if (P.loaded[sid]) need(sid);
    return linkValues(sid);
  }

  function changed(event) {
    // A native control moved (delegated, so a prerender put back after a restart works too).
    const input = event.target, ctl = input.closest && input.closest(".wt-pctl[data-key]");
    const el = ctl && ctl.closest(".wt-player[data-section]");
    if (!el) return;
    const sid = el.dataset.section, key = ctl.dataset.key, c = controlOf(sid, key);
    if (!rules.kind(c).url) { // free text, a file: nothing here plays it; the address keeps it aside for the live lab
      const take = inputs[rules.kind(c).input]; // (the box says so); an input naming its event is read once per choice
      if (take && (take.on || event.type) === event.type) {
        Promise.resolve(take.take(ctl, c, input)).then((v) => {
          const own = rules.kind(c).own;
          kept(sid, c, v, own && v ? selectOwn(sid) : {});
          if (own) play(sid); // after the address holds the text (or not): the status line says whether it waits
        });
      }
      return;
    }
    // sliders answer while they move; a number box when its value is committed (Enter, blur, spin)
    if ((input.type === "range") !== (event.type === "input")) return;
    let v = inputs[rules.kind(c).input].take(ctl, c, input);
    if (v === null) v = P.state[sid][key]; // not a usable number: the box shows the value kept
    P.state[sid][key] = v;
    show(sid, key, v);
    settle(sid, key);
    if (P.loaded[sid]) need(sid);
    play(sid);
    const q = address.query;
    // the address bar shows what the player holds; the live lab follows it (it starts from it)
    if (address.fromPlayer(sid, linkValues(sid)) && address.query !== q) playerMoved();
  }

  document.addEventListener("input", changed);
  document.addEventListener("change", changed);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", sync, { once: true });
  else sync();
  return P;
}
