// Main thread. Starts the Pyodide worker at once (before the page finishes parsing), loads BokehJS
// and Panel's JS from this origin meanwhile, embeds each section's Panel root into its
// <div id="live-SECTION"> in place of the prerendered figure, and relays Panel's pyodide-worker
// protocol (render / patch / idle) plus ours (progress, timing, url, notes, ready, error).
// Everything a test or a later feature needs is on window.__wt (see docs/DESIGN.md, "Page and worker").
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("wt-build").textContent);
  const loaded = new Set(); // scripts that have run; a retry loads only the rest
  const prerendered = new Map(); // live-ID -> its prerendered content, put back on restart
  const wt = (window.__wt = {
    config, status: "booting", progress: 0, label: "", error: null, notes: [], timings: {},
    query: location.search.slice(1), worker: null, ready: null, restart, patchesSent: 0, patchesReceived: 0,
    lastPatchAt: 0, // performance.now() when the latest worker patch was applied (repaint latency)
  });
  let settle = null;
  let patching = 0; // >0 while a worker patch is applied, so it is not echoed back
  let scripts = null;

  const $ = (id) => document.getElementById(id);
  const whenDom = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn, { once: true }) : fn());

  function loadScripts() {
    // Downloads in parallel, runs in order (async=false); each failure names its file.
    const missing = config.scripts.filter((src) => !loaded.has(src));
    return Promise.all(missing.map((src) => new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.async = false;
      s.onload = () => { loaded.add(src); resolve(); };
      s.onerror = () => { s.remove(); reject(new Error(`could not load ${src} from this site`)); };
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

  function fail(message, fatal = true) {
    // A readable line on the page; the details (tracebacks) are in the console, logged where they arose.
    wt.error = message;
    whenDom(() => {
      $("wt-error-msg").textContent = message;
      $("wt-error").querySelector("strong").textContent = fatal
        ? "The live lab could not start." : "The last change could not be applied.";
      $("wt-retry").hidden = !fatal;
      $("wt-error").hidden = false;
    });
    if (fatal) {
      if (wt.worker) wt.worker.terminate();
      wt.worker = null;
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

  function sendChange(jsdoc, event) {
    // Panel's handler logic: while the worker is busy, keep only the newest event per model
    // attribute, so a dragged slider sends its latest value, never a backlog.
    const worker = wt.worker;
    if (!worker || (event.setter_id != null && event.setter_id === "py") || patching > 0) return;
    if (worker.busy && event.model && event.attr) {
      worker.queue = worker.queue.filter((e) => !(e.model === event.model && e.attr === event.attr));
      worker.queue.push(event);
      return;
    }
    worker.busy = true;
    wt.patchesSent += 1;
    worker.postMessage({ type: "patch", patch: jsdoc.create_json_patch([event]) });
  }

  async function render(worker, msg) {
    await scripts;
    const { docs_json, render_items, sections } = JSON.parse(msg.data);
    for (const id of sections) {
      const el = $(`live-${id}`);
      if (!el) throw new Error(`the page has no <div id="live-${id}"> for section ${id}`);
      if (!prerendered.has(el.id)) prerendered.set(el.id, el.innerHTML);
    }
    const t = performance.now();
    const [views] = await Bokeh.embed.embed_items(docs_json, render_items);
    for (const id of sections) {
      $(`live-${id}`).querySelectorAll(":scope > .wt-prerender").forEach((n) => n.remove());
      $(`live-${id}`).dataset.live = "true";
    }
    wt.timings.embed = performance.now() - t;
    const jsdoc = [...views.roots.values()][0].model.document;
    worker.jsdoc = jsdoc;
    jsdoc.on_change((event) => sendChange(jsdoc, event), false);
    worker.postMessage({ type: "rendered" });
  }

  function onMessage(worker, event) {
    const msg = event.data;
    if (worker !== wt.worker) return; // a terminated worker's last words
    switch (msg.type) {
      case "progress":
        setStatus("booting", msg.label, msg.fraction);
        break;
      case "timing":
        wt.timings[msg.name] = msg.ms;
        break;
      case "render":
        render(worker, msg).catch((e) => { console.error(e); fail(`Showing the live sections failed: ${e.message}`); });
        break;
      case "ready":
        wt.timings.interactive = performance.now();
        setStatus("ready", "Live", 1);
        settle.resolve(wt);
        break;
      case "patch":
        wt.patchesReceived += 1;
        patching += 1;
        try {
          worker.jsdoc.apply_json_patch(msg.patch, msg.buffers);
        } finally {
          patching -= 1;
          wt.lastPatchAt = performance.now();
        }
        break;
      case "idle":
        if (worker.queue.length) {
          wt.patchesSent += 1;
          worker.postMessage({ type: "patch", patch: worker.jsdoc.create_json_patch(worker.queue) });
          worker.queue = [];
        } else {
          worker.busy = false;
        }
        break;
      case "url":
        wt.query = msg.data;
        history.replaceState(history.state, "", (msg.data ? `?${msg.data}` : location.pathname) + location.hash);
        break;
      case "notes":
        showNotes(msg.data);
        break;
      case "error":
        fail(msg.message, msg.fatal);
        break;
      default:
        console.warn("unknown message from the worker", msg);
    }
  }

  function start() {
    wt.ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    wt.ready.catch(() => {}); // a failure is shown on the page; awaiting code still sees the rejection
    Object.assign(wt, { error: null, timings: {} });
    setStatus("booting", "Starting…", 0);
    const worker = new Worker("worker.js");
    Object.assign(worker, { busy: false, queue: [], jsdoc: null });
    wt.worker = worker;
    worker.onmessage = (event) => onMessage(worker, event);
    worker.onerror = (event) => {
      event.preventDefault();
      if (worker === wt.worker) fail(`The Python worker stopped: ${event.message || "worker.js could not be loaded"}`);
    };
    // scheme: the colour scheme page.js resolved (theme= or prefers-color-scheme), for Panel's theme.
    worker.postMessage({ type: "boot", config, query: location.search.slice(1),
      scheme: document.documentElement.dataset.wtScheme || "light" });
    scripts = loadScripts();
    scripts.catch((e) => { if (worker === wt.worker) fail(e.message); });
  }

  function restart() {
    // A fresh worker without reloading the page: live views go, prerendered content comes back.
    if (wt.worker) wt.worker.terminate();
    wt.worker = null;
    if (window.Bokeh) Bokeh.index.roots.forEach((view) => view.remove());
    for (const [id, content] of prerendered) {
      $(id).innerHTML = content;
      delete $(id).dataset.live;
    }
    $("wt-error").hidden = true;
    start();
    return wt.ready;
  }

  whenDom(() => $("wt-retry").addEventListener("click", () => restart()));
  start();
})();
