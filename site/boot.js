// Main thread. Starts the Pyodide worker at once (before the page finishes parsing; with ?live=click or
// the browser's data saver only when the reader presses the button that says how much it downloads),
// loads BokehJS and Panel's JS from this origin meanwhile, then has Python build the sections one at a
// time, each into a Bokeh document of its own: first those in view or near it, then the rest when the
// reader is idle (pump). Each section's Panel root is laid out unseen in its <div id="live-SECTION">,
// brought to the state the reader set with the playback controls (player.js) meanwhile, then swapped in
// for the prerender in one frame, holding the section's height; the other sections keep answering from
// playback meanwhile. The page relays Panel's pyodide-worker protocol per section (render / patch / idle)
// plus ours (progress, timing, sections, build, linked, url, notes, state, error).
// Everything a test or a later feature needs is on the hook, window.__wt (see docs/DESIGN.md, "Page and worker");
// the lab's phases (starting, free, busy, building, ...) are one state machine, MOVES below.
//
// Robustness: the worker holds a Web Lock (its "lifeline") that the page waits on, so its end is seen
// at once. Once booted, the page also pings it every PING_MS: a ping unanswered for HUNG_MS is a worker
// stuck in one call (DEAD_MS when Web Locks are missing and silence is the only sign of death; then no
// Python call may run longer). A dead, hung, crashed or fatally failed worker is replaced without a
// reload: a new one boots from the state in the URL, and the page says what happened. Repeated crashes
// (MAX_CRASHES within CRASH_WINDOW_MS) stop at a Retry button instead of looping.

import { createPool, poolSize } from "./pool.js";

// Where the worker and the page's files come from: this site over http (this), or, in the classroom file
// opened from disk, the page itself (site/classroom.js's classroomTransport).
export const httpTransport = {
  ready: Promise.resolve(), worker: () => new Worker("worker.js", { type: "module" }), url: (path) => path, localize: (value) => value,
};

export function nextBuild({ unbuilt, near, distance, seen, quietMs, idleMs }) {
  // Which section Python builds next: {wait: ms} while the reader is active (quietMs since the last input, less
  // than idleMs), else {sid}: the unbuilt section nearest the viewport if one is near (of two in view, the one
  // filling more of it: the reader is reading that one, not the tail of the other), else the first in page order;
  // {} when all are built. distance(sid): px from the viewport (0: in view); seen(sid): px of the viewport it fills.
  if (!unbuilt.length) return {};
  if (quietMs < idleMs) return { wait: idleMs - quietMs };
  const close = unbuilt.filter((sid) => near.has(sid)).sort((a, b) => distance(a) - distance(b) || seen(b) - seen(a));
  return { sid: close[0] || unbuilt[0] };
}

// A lab is one worker's life, from the page's side: one record (newLab), whose phase says what Python is doing.
// Every change of phase is go(lab, event), and this table is every move there is (a move it lacks throws, at
// the line that tried it). A lab that is replaced (crash, Retry) is simply no longer wt.lab: its worker is
// terminated, its timers stopped, and anything it still says is ignored.
export const MOVES = {
  paused: { start: "starting" }, // data saver: no worker until the reader presses the button
  starting: { sections: "free", fail: "failed" }, // the worker sets Python up; "sections": it is set up
  free: { patch: "busy", state: "busy", build: "building", idle: "free", fail: "failed" }, // pump() says what next
  busy: { idle: "free", fail: "failed" }, // a patch or a state in flight, answered with "idle"
  building: { render: "free", idle: "building", fail: "failed" }, // a build in flight, answered with "render"
  failed: {}, // stopped, the reason shown; restart() makes a new lab
};
// (idle in free and building: the answer to a state posted while Python was starting, or by a test.)

export function go(lab, event) {
  const to = MOVES[lab.phase][event];
  if (!to) throw new Error(`boot.js: a lab in phase ${lab.phase} has no move on ${event}`);
  lab.phase = to;
  return lab;
}

export function newLab(phase) {
  // Everything the page keeps about one worker, in one place.
  return {
    phase, worker: null, // the Worker, once started
    queue: [], // the reader's changes to live sections not yet sent: {sid, event}, the newest per attribute
    patches: [], // the worker's patches not yet applied (applied in a task of their own)
    sections: [], docs: {}, // the shown sections, in page order (from "sections"); sid -> its BokehJS document
    building: null, // the section asked for and not yet linked: no other build, no hang watch meanwhile
    linked: new Set(), live: new Set(), // built and linked; swapped in for the prerender (handOver)
    synced: null, // the query Python was last set from
    base: 0, // the progress bar's share when Python was set up (the sections fill the rest)
    idleTimer: 0, // pump again once the reader has been idle long enough (nextToBuild)
    // the watch (heartbeat): last word heard, ping in flight and its number, last ping sent, last tick; the
    // Web Lock it holds (lifeline: true once held, false if the page is denied locks)
    heardAt: performance.now(), pingAt: 0, pingN: 0, sentAt: 0, tickAt: 0, lifeline: undefined, lockName: "", heartbeat: 0,
  };
}

export function startLab(config, transport, wt) {
  // config: the build's (#wt-build); transport: httpTransport or the classroom file's; wt: the hook, which this
  // fills in (status, ready, restart, ...) and whose page (page.js) and player (player.js) it reads.
  // A worker's death is seen at once through a Web Lock it holds (the "lifeline"; secure contexts such as
  // 127.0.0.1). The heartbeat catches a worker stuck in one call: with a lifeline a silence is only a hang,
  // so it may last HUNG_MS (a long synchronous Python call is slow, not dead); without one (plain http on a
  // LAN address) a silence of DEAD_MS is all there is to go on.
  const PING_MS = 150, DEAD_MS = 650, HUNG_MS = 8000, TICK_MS = 50;
  const BOOT_SILENCE_MS = 90_000; // booting, Python may be busy for seconds (import panel) but not this long
  // Sections are built once the reader has not touched the page for IDLE_MS, those within NEAR of the
  // viewport first, nearest first: building one holds Python (and embedding it, this thread) for a few
  // hundred ms, which a reader moving a control would feel (the playback answers meanwhile).
  const NEAR = "100% 0px", IDLE_MS = 600;
  const MAX_CRASHES = 3, CRASH_WINDOW_MS = 60_000;
  const loaded = new Set(); // scripts that have run; a retry loads only the rest
  const prerendered = new Map(); // live-ID -> its prerendered content, put back on restart
  Object.assign(wt, {
    config, status: "booting", progress: 0, label: "", error: null, notes: [], timings: {},
    worker: null, lab: null, ready: null, restart, follow, patchesSent: 0, patchesReceived: 0,
    lastPatchAt: 0, // performance.now() when the latest worker patch was applied (repaint latency)
    crashes: [], // {reason, at, noticedAfterMs}: workers replaced after booting (see crashed())
    queueHighWater: 0, // the longest the per-attribute change queue has been (bounded by the attributes)
    cspViolations: [], // securitypolicyviolation events of this page: {directive, blocked}
    heartbeat: { ping: PING_MS, dead: DEAD_MS, hung: HUNG_MS, pongs: 0 },
  });
  // Files the page itself loads (its stylesheet, Panel's CSS, scripts): Resource Timing records a failed
  // one with status 0 (network) or >= 400. The lab may still work, but the reader is told which file
  // failed and gets Retry (restart() re-creates the views, which ask for their stylesheets again).
  const failedAssets = new Set(); // every page file that failed, named together
  if (window.PerformanceObserver) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const bad = e.responseStatus === 0 || e.responseStatus >= 400;
        if (!bad || !["link", "css", "script"].includes(e.initiatorType) || !e.name.startsWith(location.origin)) continue;
        const file = e.name.slice(new URL(".", location.href).href.length).split("?")[0];
        // the boot failure already says what failed; a page script's failure fails the boot (loadScripts)
        if (wt.status === "failed" || config.scripts.includes(file)) continue;
        failedAssets.add(file);
        wt.error = `could not load ${[...failedAssets].join(", ")} from this site`;
        say("asset", "Part of the page could not be loaded.", `${wt.error}; the lab may look or work wrong until it is retried.`, true);
      }
    }).observe({ type: "resource", buffered: true });
  }
  document.addEventListener("securitypolicyviolation", (e) => {
    wt.cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI });
  });
  // Data saver (?live=click, or the browser asks to save data): no Python until the reader asks.
  const onClick = wt.page.live === "click" || !!(navigator.connection && navigator.connection.saveData);
  // The numerics workers a Run may use (site/pool.js), started on the first Run; the Panel worker learns the size.
  const pageAddress = location.href.split(/[?#]/)[0];
  wt.pool = createPool({
    size: poolSize({ cores: navigator.hardwareConcurrency, memory: navigator.deviceMemory,
      saveData: !!(navigator.connection && navigator.connection.saveData), click: wt.page.live === "click" }),
    spawn: () => transport.worker(), boot: { config, query: "", address: pageAddress }, post: (msg) => wt.lab && wt.lab.worker && wt.lab.worker.postMessage(msg),
  });
  let settle = null;
  let patching = 0; // >0 while a worker patch is applied, so it is not echoed back
  let scripts = null;

  const $ = (id) => document.getElementById(id);
  const whenDom = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn, { once: true }) : fn());

  // BokehJS and Panel (1.5 MB of script to parse and run) are needed only once Python has built the
  // sections, seconds later: they are added after the page's first frame (needScripts), so they never hold
  // back the prose or the playback controls' first answers.
  const firstPaint = new Promise((resolve) => whenDom(() => requestAnimationFrame(() => setTimeout(resolve, 0))));

  const current = (lab) => lab === wt.lab && lab.phase !== "failed";
  const booted = (lab) => !!lab && !["paused", "starting"].includes(lab.phase);

  function needScripts(lab) {
    // Asked for once Python has its packages (seconds before it has built the sections), not at once.
    if (!scripts) {
      scripts = firstPaint.then(() => transport.ready).then(loadScripts);
      scripts.catch((e) => { if (current(lab)) fail(e.message); });
    }
    return scripts;
  }

  function loadScripts() {
    // Downloads in parallel, runs in order (async=false); each failure names its file.
    const missing = config.scripts.filter((src) => !loaded.has(src));
    return Promise.all(missing.map((src) => new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = transport.url(src);
      s.async = false;
      if (config.integrity && config.integrity[src]) s.integrity = config.integrity[src]; // refuse a modified file
      s.onload = () => {
        if (!config.scripts.slice(0, config.scripts.indexOf(src)).some((before) => !loaded.has(before))) loaded.add(src);
        resolve();
      };
      s.onerror = () => {
        s.remove();
        // The scripts after this one ran without it (BokehJS before its widgets, Panel): run them again too.
        config.scripts.slice(config.scripts.indexOf(src) + 1).forEach((later) => loaded.delete(later));
        reject(new Error(`could not load ${src} from this site (missing, or not the file this build recorded)`));
      };
      document.head.appendChild(s);
    })));
  }

  function showProgress() {
    whenDom(() => {
      const bar = $("wt-progress");
      bar.value = Math.round(wt.progress * 100);
      bar.textContent = `${bar.value}%`;
      $("wt-status").textContent = wt.label;
      $("wt-boot").dataset.state = wt.status;
    });
  }

  function setStatus(status, label, progress = wt.progress) {
    Object.assign(wt, { status, label, progress });
    document.documentElement.dataset.wtStatus = status;
    showProgress();
  }

  function say(kind, title, message, retry) {
    // The error box: one bold line saying what state the lab is in, then one readable line of why.
    whenDom(() => {
      $("wt-error-msg").textContent = message;
      $("wt-error").querySelector("strong").textContent = title;
      $("wt-error").dataset.kind = kind;
      $("wt-retry").hidden = !retry;
      $("wt-error").hidden = false;
    });
  }

  function fail(message, fatal = true) {
    // A readable line on the page; the details (tracebacks) are in the console, logged where they arose.
    wt.error = message;
    const after = booted(wt.lab);
    say(fatal ? (after ? "stopped" : "failed") : "change",
      !fatal ? "The last change could not be applied."
        : after ? "The live lab stopped." : "The live lab could not start.", message, fatal);
    if (fatal) {
      if (wt.lab && wt.lab.phase !== "failed") go(wt.lab, "fail");
      stopWorker();
      setStatus("failed", "Failed");
      settle.reject(new Error(message));
    }
  }

  function showNotes(notes) {
    wt.notes = notes;
    whenDom(() => {
      const list = $("wt-notes-list");
      list.replaceChildren(...notes.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
      $("wt-notes").hidden = notes.length === 0;
    });
  }

  function sendChange(lab, sid, event) {
    // Panel's handler logic: while the worker is busy, keep only the newest event per model
    // attribute, so a dragged slider sends its latest value, never a backlog.
    if (!current(lab) || (event.setter_id != null && event.setter_id === "py") || patching > 0) return;
    if (event.model && event.attr) lab.queue = lab.queue.filter(({ event: e }) => !(e.model === event.model && e.attr === event.attr));
    lab.queue.push({ sid, event });
    wt.queueHighWater = Math.max(wt.queueHighWater, lab.queue.length);
    pump(lab);
  }

  function send(lab, msg) {
    // A message Python answers with "idle" (or, for "build", "render"): one at a time (free -> busy, building).
    go(lab, msg.type).worker.postMessage(msg);
  }

  // The shown sections that come within NEAR of the viewport (kept for every worker: a restart builds them first).
  const near = (wt.near = new Set());
  const nearby = window.IntersectionObserver && new IntersectionObserver((entries) => {
    for (const e of entries) near[e.isIntersecting ? "add" : "delete"](e.target.id.slice("live-".length));
    if (wt.lab) pump(wt.lab);
  }, { rootMargin: NEAR });
  whenDom(() => { if (nearby) document.querySelectorAll(".wt-live[id^='live-']").forEach((el) => nearby.observe(el)); });
  let lastInputAt = -Infinity;
  ["pointerdown", "keydown", "input", "wheel"].forEach((type) =>
    document.addEventListener(type, () => { lastInputAt = performance.now(); }, { capture: true, passive: true }));

  function distance(sid) {
    // How far section sid is from the viewport, in px (0: in view).
    const r = $(`live-${sid}`).getBoundingClientRect();
    return Math.max(0, r.top - innerHeight, -r.bottom);
  }

  function seen(sid) {
    // How much of the viewport's height section sid fills, in px.
    const r = $(`live-${sid}`).getBoundingClientRect();
    return Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  }

  function nextToBuild(lab) {
    // Once the reader is idle (nextBuild): the section to build now, or undefined (then pump runs again later).
    const unbuilt = lab.sections.filter((sid) => !(sid in lab.docs));
    const { sid, wait } = nextBuild({ unbuilt, near, distance, seen, quietMs: performance.now() - lastInputAt, idleMs: IDLE_MS });
    if (wait) {
      clearTimeout(lab.idleTimer);
      lab.idleTimer = setTimeout(() => pump(lab), wait);
    }
    return sid;
  }

  function pump(lab) {
    // What Python does next, whenever it is free: the reader's changes to live sections first, then the
    // playing sections' state (catch up), then the hand-over of sections built and caught up, then a build.
    if (lab !== wt.lab || lab.phase !== "free") return;
    if (lab.queue.length) {
      const sid = lab.queue[0].sid; // one section's changes per patch: each has its own document
      const events = lab.queue.filter((q) => q.sid === sid).map((q) => q.event);
      lab.queue = lab.queue.filter((q) => q.sid !== sid);
      wt.patchesSent += 1;
      return send(lab, { type: "patch", sid, patch: lab.docs[sid].create_json_patch(events) });
    }
    const playing = lab.sections.filter((sid) => !lab.live.has(sid));
    if (!playing.length) return handOver(lab); // all live (or none shown): ready
    if (wt.address.query !== lab.synced) {
      lab.synced = wt.address.query;
      return send(lab, { type: "state", query: lab.synced, sections: playing });
    }
    handOver(lab);
    const sid = lab.building ? undefined : nextToBuild(lab);
    if (sid) {
      lab.building = sid;
      lab.docs[sid] = null; // asked for
      wt.timings[`asked:${sid}`] = performance.now();
      send(lab, { type: "build", sid });
    }
  }

  // Bokeh's widgets leave three things unnamed for a screen reader: a slider's handle (its title sits beside
  // it), a spinner's up/down buttons (drawn as arrows) and a checkbox (its label is a <div>). Each is named
  // from the widget's own visible title, in every shadow root under a live section, again whenever Bokeh
  // redraws one: an observer on each shadow root re-runs the pass on the roots that changed.
  const named = new WeakSet(); // shadow roots already observed
  const renamer = new MutationObserver((records) => new Set(records.map((r) => r.target.getRootNode())).forEach(nameControls));
  const text = (el) => (el ? el.textContent.trim() : "");
  function nameControls(root) {
    const set = (el, name) => { if (name && el.getAttribute("aria-label") !== name) el.setAttribute("aria-label", name); };
    for (const el of root.querySelectorAll("*")) {
      const inner = el.shadowRoot;
      if (inner && !named.has(inner)) {
        named.add(inner);
        renamer.observe(inner, { childList: true, subtree: true });
      }
      if (inner) nameControls(inner);
    }
    for (const handle of root.querySelectorAll("[role=slider]")) {
      const title = root.querySelector(".bk-slider-title");
      set(handle, text(title).slice(0, text(title).length - text(title && title.querySelector(".bk-slider-value")).length).replace(/:\s*$/, ""));
    }
    const field = text(root.querySelector("label[for]"));
    for (const [cls, verb] of [[".bk-spin-btn-up", "increase"], [".bk-spin-btn-down", "decrease"]]) {
      for (const btn of root.querySelectorAll(cls)) set(btn, field && `${verb} ${field}`);
    }
    for (const box of root.querySelectorAll("input[type=checkbox]")) set(box, text(box.parentNode.querySelector(".bk-label")));
  }

  async function render(lab, msg) {
    await needScripts(lab);
    const sid = msg.sid;
    const { docs_json, render_items } = transport.localize(JSON.parse(msg.data));
    const el = $(`live-${sid}`);
    if (!el) throw new Error(`the page has no <div id="live-${sid}"> for section ${sid}`);
    if (!prerendered.has(el.id)) prerendered.set(el.id, el.innerHTML);
    // The live root is laid out unseen below the prerender until handOver() swaps them.
    el.append(Object.assign(document.createElement("div"), { id: `live-root-${sid}`, className: "wt-live-root wt-hold" }));
    for (const item of render_items) {
      for (const [root, id] of Object.entries(item.roots)) item.roots[root] = id.replace(/^live-/, "live-root-");
    }
    const t = performance.now();
    const [views] = await Bokeh.embed.embed_items(docs_json, render_items);
    if (!current(lab)) return [...views.roots.values()].forEach((view) => view.remove()); // replaced meanwhile
    nameControls($(`live-root-${sid}`));
    wt.timings[`embed:${sid}`] = performance.now() - t;
    wt.timings.embed = (wt.timings.embed || 0) + wt.timings[`embed:${sid}`];
    const jsdoc = [...views.roots.values()][0].model.document;
    lab.docs[sid] = jsdoc;
    jsdoc.on_change((event) => sendChange(lab, sid, event), false);
    lab.worker.postMessage({ type: "rendered", sid });
  }

  function follow() {
    // The player moved a section it holds (wt.address): a section goes live only once Python holds that state (pump).
    const lab = wt.lab;
    if (!lab || lab.phase === "paused") return;
    // taken before Python sets up its State
    if (lab.phase === "starting") lab.worker.postMessage({ type: "state", query: wt.address.query });
    else pump(lab);
  }

  function handOver(lab) {
    // Python is free and holds the controls' state: every section built since is swapped in, in one frame:
    // prerender out, live root in. Each keeps at least its height until the reader's next input (a shift
    // right after input is not a layout shift), so nothing below it moves.
    const now = performance.now(), handed = [];
    for (const sid of lab.linked) {
      if (lab.live.has(sid)) continue;
      handed.push(sid);
      lab.live.add(sid);
      const el = $(`live-${sid}`);
      el.style.minHeight = `${el.getBoundingClientRect().height}px`;
      el.querySelectorAll(":scope > .wt-prerender").forEach((n) => n.remove());
      $(`live-root-${sid}`).classList.remove("wt-hold");
      el.dataset.live = "true";
      wt.timings.live[sid] = now;
    }
    wt.address.handOver(handed); // Python holds them now: what it holds (e.g. derived values) is the truth
    if (lab.live.size < lab.sections.length) {
      const share = lab.live.size / lab.sections.length;
      // short: the status line is one line (style.css); the header says how the others answer meanwhile
      if (lab.live.size) setStatus("booting", `Live: ${lab.live.size} of ${lab.sections.length} sections`,
        lab.base + (1 - lab.base) * share);
      return;
    }
    if (wt.status === "ready") return;
    wt.timings.interactive = now;
    setStatus("ready", "Live: every section recomputes as you change it", 1);
    settle.resolve(wt);
  }

  const release = () => document.querySelectorAll(".wt-live[data-live]").forEach((el) => { el.style.minHeight = ""; });
  ["pointerdown", "keydown"].forEach((type) => document.addEventListener(type, release, { capture: true, passive: true }));

  function onMessage(lab, event) {
    const msg = event.data;
    if (!current(lab)) return; // a terminated worker's last words
    lab.heardAt = performance.now();
    switch (msg.type) {
      case "lifeline": // the worker holds its lock: wait on it; it is granted when the worker ends
        lab.lifeline = true;
        navigator.locks.request(lab.lockName, () => {
          if (current(lab) && booted(lab)) crashed("the Python worker stopped", performance.now() - lab.heardAt);
          else if (current(lab)) fail("The Python worker stopped while starting.");
        }).catch(() => { lab.lifeline = false; }); // a page the browser denies locks: the heartbeat alone
        break;
      case "pong":
        if (msg.n === lab.pingN) lab.pingAt = 0;
        wt.heartbeat.pongs += 1;
        break;
      case "progress":
        setStatus("booting", msg.label, msg.fraction);
        if (msg.step === "import" || msg.step === "app") needScripts(lab);
        break;
      case "timing":
        wt.timings[msg.name] = msg.ms;
        break;
      case "sections": // Python is set up: it builds the sections the page asks for, one at a time
        Object.assign(go(lab, "sections"), { sections: msg.sections, synced: msg.query, base: wt.progress });
        pump(lab);
        break;
      case "render":
        go(lab, "render"); // Python is free again while this thread embeds the section
        render(lab, msg).catch((e) => { console.error(e); fail(`Showing the live section ${msg.sid} failed: ${e.message}`); });
        pump(lab);
        break;
      case "linked":
        lab.linked.add(msg.sid);
        lab.building = null;
        setTimeout(() => pump(lab), 0); // after the patches it sent before (applyPatches) are applied
        break;
      case "patch":
        // Applied in a task of its own, not here: a worker that dies with many patches sent would
        // otherwise be noticed (its lifeline granted) only after the page had applied every one of them.
        wt.patchesReceived += 1;
        lab.patches.push(msg);
        if (lab.patches.length === 1) setTimeout(() => applyPatches(lab), 0);
        break;
      case "idle":
        go(lab, "idle");
        if (lab.queue.length) pump(lab); // the reader's next change, at once
        else setTimeout(() => pump(lab), 0); // after the patches just received (applyPatches) are applied
        break;
      case "values": // {sid: {key: value}}: Python's values of the sections that changed
        wt.address.fromPython(msg.data);
        break;
      case "notes":
        showNotes(msg.data);
        break;
      case "pool-run": // a Run's parts for the pool; its batches go back to this worker
      case "pool-cancel":
        wt.pool[msg.type === "pool-run" ? "run" : "cancel"](msg.data);
        break;
      case "error":
        if (msg.crashed && booted(lab)) crashed(`Python failed fatally (${msg.message})`);
        else fail(msg.message, msg.fatal);
        break;
      default:
        console.warn("unknown message from the worker", msg);
    }
  }

  function applyPatches(lab) {
    const patches = lab.patches.splice(0);
    if (!current(lab)) return; // it ended meanwhile: its replacement boots from the URL instead
    patching += 1;
    try {
      for (const msg of patches) lab.docs[msg.sid].apply_json_patch(transport.localize(msg.patch), msg.buffers);
    } finally {
      patching -= 1;
      wt.lastPatchAt = performance.now();
    }
  }

  function promiseReady() {
    wt.ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    wt.ready.catch(() => {}); // a failure is shown on the page; awaiting code still sees the rejection
  }

  // What the live lab needs that an old or limited browser may lack (the classroom file adds its own): the
  // first one missing is named and Python is not started; the playback (player.js) needs none of them.
  const NEEDS = [
    ["WebAssembly", () => typeof WebAssembly === "object" && typeof WebAssembly.instantiate === "function"],
    ["BigInt64Array (WebAssembly's 64-bit integers)", () => typeof BigInt64Array === "function"],
    ["Web Workers", () => typeof Worker === "function"],
    ...(transport.needs || []),
  ];

  function start() {
    if (wt.status !== "paused") promiseReady(); // a paused page keeps the promise it handed out
    Object.assign(wt, { error: null, timings: { live: {} } });
    const lacking = NEEDS.find(([, has]) => !has());
    if (lacking) {
      const [name, , also = "The figures and controls answer from tables this page's build precomputed."] = lacking;
      wt.missing = name;
      wt.error = `This browser lacks ${name}, which the live lab needs. ${also}`;
      say("unsupported", "The live lab cannot run in this browser.", wt.error, false);
      setStatus("failed", "Not available in this browser", 0);
      return settle.reject(new Error(wt.error));
    }
    setStatus("booting", "Starting…", 0);
    const lab = go(wt.lab && wt.lab.phase === "paused" ? wt.lab : newLab("paused"), "start");
    const worker = (lab.worker = transport.worker());
    Object.assign(wt, { lab, worker });
    worker.onmessage = (event) => onMessage(lab, event);
    worker.onerror = (event) => {
      event.preventDefault();
      if (!current(lab)) return;
      const why = event.message || "worker.js could not be loaded";
      if (booted(lab)) crashed(`the Python worker threw an uncaught error (${why})`);
      else fail(`The Python worker stopped: ${why}`);
    };
    lab.heartbeat = setInterval(() => heartbeat(lab), TICK_MS);
    if (navigator.locks) {
      lab.lockName = `weighttying-worker-${Math.random().toString(36).slice(2)}`;
      worker.postMessage({ type: "lifeline", name: lab.lockName });
    }
    // scheme: the colour scheme page.js resolved (theme= or prefers-color-scheme), for Panel's theme.
    // address: this page without query, for the links Python writes into exports and figure stamps.
    worker.postMessage({ type: "boot", config, query: wt.address.query, address: pageAddress, pool: wt.pool.size,
      scheme: document.documentElement.dataset.wtScheme || "light" });
    scripts = null;
    // The page's files that failed their check (the classroom file) stop the lab now, not when BokehJS is asked for.
    transport.ready.catch((e) => { if (current(lab)) fail(e.message); });
  }

  function stopWorker() {
    // The lab's worker ends (the lab stays wt.lab, failed, until restart() makes a new one).
    const lab = wt.lab;
    wt.worker = null;
    if (lab) {
      clearInterval(lab.heartbeat);
      clearTimeout(lab.idleTimer);
      if (lab.worker) lab.worker.terminate();
    }
  }

  function heartbeat(lab) {
    // Booted: a ping unanswered for DEAD_MS means the worker is gone or stuck in one long call.
    // Booting: Python holds the thread for seconds at a time, so only a long total silence counts.
    if (!current(lab)) return clearInterval(lab.heartbeat);
    const now = performance.now();
    if (lab.phase === "starting" || lab.building) { // Python may be inside a long call: setting up, or building a section
      if (now - lab.heardAt > BOOT_SILENCE_MS) fail(`The Python worker stopped responding while starting (no word for ${Math.round(BOOT_SILENCE_MS / 1000)} s).`);
      return;
    }
    const gap = now - (lab.tickAt || now);
    lab.tickAt = now;
    // This page's own thread was held up (or asleep): that time does not count against the worker, whose
    // answer may be queued behind us. The clock pauses rather than restarts, so stalls cannot postpone
    // the verdict on a hung worker for ever.
    if (gap > 4 * TICK_MS && lab.pingAt) lab.pingAt += gap - TICK_MS;
    if (lab.pingAt && now - lab.pingAt > (lab.lifeline ? HUNG_MS : DEAD_MS)) {
      crashed(`the Python worker stopped responding (no answer for ${Math.round(now - lab.pingAt)} ms)`,
        now - lab.pingAt);
    } else if (!lab.pingAt && now - lab.sentAt >= PING_MS) {
      lab.pingN += 1;
      lab.pingAt = lab.sentAt = now;
      lab.worker.postMessage({ type: "ping", n: lab.pingN });
    }
  }

  function crashed(reason, silentMs = 0) {
    // A worker that booted and then died: replace it, restoring the state from the URL (the worker
    // wrote it after every change), and say so. Loops are cut short after MAX_CRASHES.
    const now = performance.now();
    wt.crashes.push({ reason, at: now, noticedAfterMs: silentMs });
    console.warn(`weighttying: ${reason}; starting a new worker`);
    const recent = wt.crashes.filter((c) => now - c.at < CRASH_WINDOW_MS).length;
    if (recent > MAX_CRASHES) {
      fail(`It stopped ${recent} times in a minute; the last time because ${reason}.`);
      return;
    }
    restart({ auto: true });
    const detail = `Because ${reason}, a new one was started with the settings in this page's address; ` +
      "a run that was in progress has to be started again.";
    wt.error = detail;
    say("restarted", "The live lab stopped and is restarting.", detail, false);
    wt.ready.then(() => {
      if (wt.error === detail) say("restarted", "The live lab stopped and was restarted; your settings are back.", detail, false);
    }, () => {});
  }

  function restart(options = {}) {
    // A fresh worker without reloading the page: live views go, prerendered content comes back.
    // The Retry button and tests call it; options.auto is a crash restart (the crash count is kept).
    stopWorker();
    if (!options.auto) wt.crashes = [];
    patching = 0;
    if (window.Bokeh) Bokeh.index.roots.forEach((view) => view.remove());
    for (const [id, content] of prerendered) {
      $(id).innerHTML = content;
      $(id).style.minHeight = "";
      delete $(id).dataset.live;
    }
    wt.address.restart(); // the player holds every section again
    wt.player.sync(); // the controls and slots of the URL's state
    $("wt-error").hidden = true;
    failedAssets.clear();
    showNotes([]);
    // A stylesheet of the page that failed to load is asked for again (a view's come with the views).
    document.querySelectorAll("link[rel=stylesheet]").forEach((l) => { if (!l.sheet) l.replaceWith(l.cloneNode()); });
    start();
    return wt.ready;
  }

  // Retry: a new worker; but a file of the page itself (a stylesheet) is only asked for again by a reload,
  // which loses nothing (the state is in the URL).
  whenDom(() => $("wt-retry").addEventListener("click", () => {
    if ($("wt-error").dataset.kind === "asset") location.reload();
    else restart();
  }));

  function pause() {
    // Data saver: the controls answer from the playback tables; the button says what the live lab costs.
    wt.lab = newLab("paused");
    promiseReady();
    setStatus("paused", "Not loaded (data saver): the controls answer from precomputed tables.", 0);
    whenDom(() => {
      const go = $("wt-go");
      go.textContent = `Load the live lab (${(config.live_bytes / 1e6).toFixed(1)} MB download)`;
      go.hidden = false;
      go.addEventListener("click", () => { go.hidden = true; start(); }, { once: true });
    });
  }

  if (onClick) pause();
  else start();
}
