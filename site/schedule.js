// What Python does next (pump), whenever it is free: the reader's changes to live sections first, then the playing
// sections' state, then the hand-over, then a build. Sections are built once the reader has not touched the page
// for IDLE_MS, those within NEAR of the viewport first, nearest first (nextBuild): building one holds Python (and
// embedding it, this thread) for a few hundred ms, which a reader moving a control would feel (the playback
// answers meanwhile).
import { go } from "./lab.js";
import { $, whenDom } from "./dom.js";

const NEAR = "100% 0px", IDLE_MS = 600;

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

// A lab is one worker's life, from the page's side: one record (newLab), whose phase says what Python is doing; what
// the scheduler keeps of it is lab.schedule (begin), which only this part writes.

export class Scheduler {
  lastInputAt = -Infinity; // performance.now() of the reader's latest input (the builds wait for a pause)
  nearby = null; // the IntersectionObserver that tells the lab's state which sections are near (NEAR)

  // state: the lab's state (labstate.js: its current lab, near, counters, timings); address: the query Python is to
  // hold; current(lab): lab is still the lab's; sections: handover.js's LiveSections; runs: earlyrun.js's Runs before
  // Panel, whose batches Python takes with the state.
  constructor({ state, address, current, sections, runs }) {
    Object.assign(this, { state, address, current, sections, runs });
    // The shown sections that come within NEAR of the viewport (kept for every worker: a restart builds them first).
    this.nearby = window.IntersectionObserver && new IntersectionObserver((entries) => {
      for (const e of entries) state.nearBy(e.target.id.slice("live-".length), e.isIntersecting);
      if (state.lab) this.pump(state.lab);
    }, { rootMargin: NEAR });
    whenDom(() => { if (this.nearby) document.querySelectorAll(".wt-live[id^='live-']").forEach((el) => this.nearby.observe(el)); });
    ["pointerdown", "keydown", "input", "wheel"].forEach((type) =>
      document.addEventListener(type, () => { this.lastInputAt = performance.now(); }, { capture: true, passive: true }));
  }

  begin(lab) {
    // LAB's worker has just started. queue: the reader's changes to live sections not yet sent, {sid, event}, the
    // newest per attribute; asked: the sections Python was asked to build; building: the one not yet linked (no
    // other build, no hang watch meanwhile); synced, moved: the query Python was last set from and address.moved
    // when it was; idleTimer: pump again once the reader has been idle long enough (nextToBuild).
    lab.schedule = { queue: [], asked: new Set(), building: null, synced: null, moved: 0, idleTimer: 0 };
  }

  setUp(lab, query) {
    // Python is set up, its State from QUERY: what next.
    lab.schedule.synced = query;
    this.pump(lab);
  }

  linked(lab) {
    // The section being built is linked: the next, after the patches it sent before (applyPatches) are applied.
    lab.schedule.building = null;
    setTimeout(() => this.pump(lab), 0);
  }

  idle(lab) {
    // Python is free again: the reader's next change at once, else after the patches just received (applyPatches).
    if (lab.schedule.queue.length) this.pump(lab);
    else setTimeout(() => this.pump(lab), 0);
  }

  sendChange(lab, sid, event) {
    // Panel's handler logic: while the worker is busy, keep only the newest event per model
    // attribute, so a dragged slider sends its latest value, never a backlog.
    if (!this.current(lab) || (event.setter_id != null && event.setter_id === "py") || lab.handover.patching > 0) return;
    const { schedule } = lab;
    if (event.model && event.attr) schedule.queue = schedule.queue.filter(({ event: e }) => !(e.model === event.model && e.attr === event.attr));
    schedule.queue.push({ sid, event });
    this.state.queueSeen(schedule.queue.length);
    this.pump(lab);
  }

  send(lab, msg) {
    // A message Python answers with "idle" (or, for "build", "render"): one at a time (free -> busy, building).
    go(lab, msg.type).worker.postMessage(msg);
  }

  nextToBuild(lab) {
    // Once the reader is idle (nextBuild): the section to build now, or undefined (then pump runs again later).
    const { schedule } = lab;
    const unbuilt = lab.handover.shown.filter((sid) => !schedule.asked.has(sid));
    const { sid, wait } = nextBuild({ unbuilt, near: this.state.near, distance, seen,
      quietMs: performance.now() - this.lastInputAt, idleMs: IDLE_MS });
    if (wait) {
      clearTimeout(schedule.idleTimer);
      schedule.idleTimer = setTimeout(() => this.pump(lab), wait);
    }
    return sid;
  }

  pump(lab) {
    // What Python does next, whenever it is free: the reader's changes to live sections first, then the
    // playing sections' state (catch up: with the Runs before Panel that are over), then the hand-over of sections
    // built and caught up, then a build.
    const { state, address, runs } = this;
    if (lab !== state.lab || lab.phase !== "free") return;
    const { schedule } = lab, { shown, live, docs } = lab.handover;
    if (schedule.queue.length) {
      const sid = schedule.queue[0].sid; // one section's changes per patch: each has its own document
      const events = schedule.queue.filter((q) => q.sid === sid).map((q) => q.event);
      schedule.queue = schedule.queue.filter((q) => q.sid !== sid);
      state.patchSent();
      return this.send(lab, { type: "patch", sid, patch: docs[sid].create_json_patch(events) });
    }
    const playing = shown.filter((sid) => !live.has(sid));
    if (!playing.length) return this.sections.handOver(lab); // all live (or none shown): ready
    if (address.query !== schedule.synced || address.moved !== schedule.moved || runs.pending(playing)) {
      [schedule.synced, schedule.moved] = [address.query, address.moved];
      return this.send(lab, { type: "state", query: schedule.synced, sections: playing, carried: address.carried(playing),
        ran: runs.handOut(playing) });
    }
    this.sections.handOver(lab);
    const sid = schedule.building ? undefined : this.nextToBuild(lab);
    if (sid) {
      schedule.building = sid;
      schedule.asked.add(sid);
      state.timing(`asked:${sid}`, performance.now());
      this.send(lab, { type: "build", sid });
    }
  }

  playerMoved() {
    // The player moved a section it holds (address.js): a section goes live only once Python holds that state (pump).
    const lab = this.state.lab;
    if (!lab || lab.phase === "paused") return;
    // taken before Python sets up its State
    if (lab.phase === "starting") lab.worker.postMessage({ type: "state", query: this.address.query, carried: this.address.carried() });
    else this.pump(lab);
  }
}

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
