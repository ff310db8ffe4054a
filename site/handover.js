// A section goes live: Python's render is embedded unseen (render), then swapped in for the prerender in one frame
// once Python holds the controls' state (handOver); the worker's patches are applied in a task of their own. A
// restart puts the prerenders back (putBack). What this part keeps of a worker is lab.handover (begin), which only
// it writes.
import { nameControls } from "./names.js";
import { $ } from "./dom.js";

export class LiveSections {
  // live-ID -> the prerendered nodes its live root replaced, copies (putBack restores them): nodes, never their HTML,
  // since slots a worker drew before Panel were checked as nodes (inert.js) and are not to be parsed again
  prerendered = new Map();

  // state: the lab's state (labstate.js: timings, status, ready); address: told which sections Python holds now;
  // current(lab): lab is still the lab's; scripts: scripts.js's; sendChange: the scheduler's (it calls handOver);
  // status: status.js's; runs: earlyrun.js's (a section whose Run before Panel is in flight waits for its end).
  constructor({ state, transport, address, current, scripts, sendChange, status, runs }) {
    Object.assign(this, { state, transport, address, current, scripts, sendChange, status, runs });
    const release = () => document.querySelectorAll(".wt-live[data-live]").forEach((el) => { el.style.minHeight = ""; });
    // A press releases once its click is over (the next task): a page shrinking under a pressed button at its bottom
    // scrolls up, the button moves from under the pointer and the click lands beside it. A key releases at once.
    document.addEventListener("pointerup", () => setTimeout(release), { capture: true, passive: true });
    document.addEventListener("keydown", release, { capture: true, passive: true });
  }

  begin(lab) {
    // LAB's worker has just started. shown: the sections Python shows, in page order (setUp); base: the progress
    // bar's share when Python was set up (the sections fill the rest); docs: sid -> its BokehJS document; linked:
    // built and linked; live: swapped in for the prerender (handOver); patches: the worker's patches not yet applied
    // (received); patching: >0 while they are applied, so they are not echoed back (the scheduler's sendChange).
    lab.handover = { shown: [], base: 0, docs: {}, linked: new Set(), live: new Set(), patches: [], patching: 0 };
  }

  setUp(lab, shown, base) {
    // Python is set up and shows SHOWN; the progress bar stood at BASE.
    Object.assign(lab.handover, { shown, base });
  }

  linked(lab, sid) {
    // Python linked section sid's document: it goes live at the next hand-over.
    lab.handover.linked.add(sid);
  }

  received(lab, msg) {
    // A worker patch, applied in a task of its own (applyPatches) with any that follow it meanwhile, not at once: a
    // worker that dies with many patches sent would otherwise be noticed (its lifeline granted) only after the page
    // had applied every one of them.
    lab.handover.patches.push(msg);
    if (lab.handover.patches.length === 1) setTimeout(() => this.applyPatches(lab), 0);
  }

  async render(lab, msg) {
    await this.scripts.need(lab);
    const sid = msg.sid;
    const { docs_json, render_items } = this.transport.localize(JSON.parse(msg.data));
    const el = $(`live-${sid}`);
    if (!el) throw new Error(`the page has no <div id="live-${sid}"> for section ${sid}`);
    if (!this.prerendered.has(el.id)) this.prerendered.set(el.id, [...el.childNodes].map((n) => n.cloneNode(true)));
    // The live root is laid out unseen below the prerender until handOver() swaps them.
    el.append(Object.assign(document.createElement("div"), { id: `live-root-${sid}`, className: "wt-live-root wt-hold" }));
    for (const item of render_items) {
      for (const [root, id] of Object.entries(item.roots)) item.roots[root] = id.replace(/^live-/, "live-root-");
    }
    const t = performance.now();
    const [views] = await Bokeh.embed.embed_items(docs_json, render_items);
    if (!this.current(lab)) return [...views.roots.values()].forEach((view) => view.remove()); // replaced meanwhile
    nameControls($(`live-root-${sid}`));
    this.state.embedded(sid, performance.now() - t);
    const jsdoc = [...views.roots.values()][0].model.document;
    lab.handover.docs[sid] = jsdoc;
    jsdoc.on_change((event) => this.sendChange(lab, sid, event), false);
    lab.worker.postMessage({ type: "rendered", sid });
  }

  handOver(lab) {
    // Python is free and holds the controls' state: every section built since is swapped in, in one frame:
    // prerender out, live root in. Each keeps at least its height until the reader's next input (a shift
    // right after input is not a layout shift), so nothing below it moves.
    const { state } = this, { shown, base, linked, live } = lab.handover;
    const now = performance.now(), handed = [];
    for (const sid of linked) {
      if (live.has(sid) || this.runs.running(sid)) continue;
      handed.push(sid);
      live.add(sid);
      const el = $(`live-${sid}`);
      el.style.minHeight = `${el.getBoundingClientRect().height}px`;
      el.querySelectorAll(":scope > .wt-prerender").forEach((n) => n.remove());
      $(`live-root-${sid}`).classList.remove("wt-hold");
      el.dataset.live = "true";
      state.wentLive(sid, now);
    }
    this.address.handOver(handed); // Python holds them now: what it holds (e.g. derived values) is the truth
    if (live.size < shown.length) {
      const share = live.size / shown.length;
      // short: the status line is one line (style.css); the header says how the others answer meanwhile
      if (live.size) this.status.setStatus("booting", `Live: ${live.size} of ${shown.length} sections`,
        base + (1 - base) * share);
      return;
    }
    if (state.status === "ready") return;
    state.timing("interactive", now);
    // short enough to show whole on a phone's line; true of an embed's one section as of the whole page
    this.status.setStatus("ready", "Live: recomputed as you change it", 1);
    state.isReady();
  }

  applyPatches(lab) {
    const { handover } = lab;
    const patches = handover.patches.splice(0);
    if (!this.current(lab)) return; // it ended meanwhile: its replacement boots from the URL instead
    handover.patching += 1;
    try {
      for (const msg of patches) handover.docs[msg.sid].apply_json_patch(this.transport.localize(msg.patch), msg.buffers);
    } finally {
      handover.patching -= 1;
      this.state.patchApplied(performance.now());
    }
  }

  putBack() {
    // A restart: the live views go and every prerender they replaced comes back, at its own height.
    if (window.Bokeh) Bokeh.index.roots.forEach((view) => view.remove());
    for (const [id, nodes] of this.prerendered) {
      $(id).replaceChildren(...nodes.map((n) => n.cloneNode(true)));
      $(id).style.minHeight = "";
      delete $(id).dataset.live;
    }
  }
}
