// The live lab's state, one owner: where Python is, what the page said, counters and timings. Its fields are private
// and its methods their only writers; the lab's parts (boot.js and the modules it makes) ask it, and the hook
// (hook.js: LAB) shows its getters. A write to a field from outside throws (a getter without a setter, in the
// strict code of the parts' classes), so no part can change what the page says behind its back.
import { DEAD_MS, HUNG_MS, PING_MS } from "./watch.js";

export class LabState {
  #status = "booting"; // paused | booting | ready | failed (also html[data-wt-status], status.js)
  #progress = 0; // the progress bar's fraction, 0..1
  #label = ""; // the status line's words
  #error = null; // the reader's line of why, in the error box (null: none)
  #missing = undefined; // what this browser lacks that the live lab needs (NEEDS in boot.js), once seen
  #notes = []; // the notes on the link's values Python sent (shown under the status line)
  #timings = {}; // boot steps and build:<sid> (the worker's), asked:<sid>, embed:<sid>, embed, live: {sid}, interactive
  #worker = null; // the current lab's Worker while it runs
  #lab = null; // the current lab (lab.js's newLab): a crash or Retry makes a new one
  #ready = null; // a promise: every shown section is live (rejected when the lab fails)
  #settle = null; // ready's {resolve, reject}
  #patchesSent = 0; // the reader's changes sent to Python, one patch per section
  #patchesReceived = 0; // the worker's patches heard
  #lastPatchAt = 0; // performance.now() when the latest worker patch was applied (repaint latency)
  #crashes = []; // {reason, at, noticedAfterMs}: workers replaced after booting (watch.js's crashed)
  #queueHighWater = 0; // the longest the per-attribute change queue has been (bounded by the attributes)
  #cspViolations = []; // securitypolicyviolation events of this page: {directive, blocked}
  #heartbeat = { ping: PING_MS, dead: DEAD_MS, hung: HUNG_MS, pongs: 0 }; // the watch's bounds and pongs heard
  #near = new Set(); // the shown sections within reach of the viewport (schedule.js), kept across workers
  #parts = null; // {pool, early, runs, restart, playerMoved}: what boot.js equips it with, shown by the hook

  get status() { return this.#status; }
  get progress() { return this.#progress; }
  get label() { return this.#label; }
  get error() { return this.#error; }
  get missing() { return this.#missing; }
  get notes() { return this.#notes; }
  get timings() { return this.#timings; }
  get worker() { return this.#worker; }
  get lab() { return this.#lab; }
  get ready() { return this.#ready; }
  get patchesSent() { return this.#patchesSent; }
  get patchesReceived() { return this.#patchesReceived; }
  get lastPatchAt() { return this.#lastPatchAt; }
  get crashes() { return this.#crashes; }
  get queueHighWater() { return this.#queueHighWater; }
  get cspViolations() { return this.#cspViolations; }
  get heartbeat() { return this.#heartbeat; }
  get near() { return this.#near; }
  get pool() { return this.#parts && this.#parts.pool; }
  get early() { return this.#parts && this.#parts.early; }
  get runs() { return this.#parts && this.#parts.runs; }
  get restart() { return this.#parts && this.#parts.restart; }
  get playerMoved() { return this.#parts && this.#parts.playerMoved; }

  equip({ pool, early, runs, restart, playerMoved }) {
    // The lab's pool, early answers and Runs before Panel, and its restart and playerMoved, once: the hook and main.js
    // reach them here.
    if (this.#parts) throw new Error("labstate.js: the lab's state is equipped once");
    this.#parts = { pool, early, runs, restart, playerMoved };
  }

  setStatus(status, label, progress = this.#progress) {
    [this.#status, this.#label, this.#progress] = [status, label, progress];
  }

  said(error) {
    // The error box's line of why (null: none).
    this.#error = error;
  }

  lacks(name, error) {
    // This browser lacks NAME, which the live lab needs; ERROR says so.
    [this.#missing, this.#error] = [name, error];
  }

  begin() {
    // A worker starts: no error yet, and timings anew (live: when each section went live).
    [this.#error, this.#timings] = [null, { live: {} }];
  }

  use(lab, worker = null) {
    // LAB is the current one now, run by WORKER (null: paused, not started).
    [this.#lab, this.#worker] = [lab, worker];
  }

  workerEnded() {
    // The current lab's worker ended (the lab stays current, failed, until a restart makes a new one).
    this.#worker = null;
  }

  promiseReady() {
    // A new promise that every shown section goes live; a failure is shown on the page, so one nobody awaits is fine.
    this.#ready = new Promise((resolve, reject) => { this.#settle = { resolve, reject }; });
    this.#ready.catch(() => {});
  }

  isReady() {
    this.#settle.resolve();
  }

  failed(error) {
    // ready is rejected with ERROR (an Error).
    this.#settle.reject(error);
  }

  timing(name, ms) {
    this.#timings[name] = ms;
  }

  embedded(sid, ms) {
    // Section sid's embedding took MS; embed is their total.
    this.#timings[`embed:${sid}`] = ms;
    this.#timings.embed = (this.#timings.embed || 0) + ms;
  }

  wentLive(sid, at) {
    this.#timings.live[sid] = at;
  }

  patchSent() {
    this.#patchesSent += 1;
  }

  patchReceived() {
    this.#patchesReceived += 1;
  }

  patchApplied(at) {
    this.#lastPatchAt = at;
  }

  crash(crash) {
    // A worker replaced after booting, {reason, at, noticedAfterMs}.
    this.#crashes.push(crash);
  }

  forgetCrashes() {
    // The reader's Retry: the crash count starts again (a new list: one handed out before keeps what it said).
    this.#crashes = [];
  }

  queueSeen(length) {
    this.#queueHighWater = Math.max(this.#queueHighWater, length);
  }

  csp(violation) {
    this.#cspViolations.push(violation);
  }

  setNotes(notes) {
    this.#notes = notes;
  }

  pong() {
    this.#heartbeat.pongs += 1;
  }

  nearBy(sid, near) {
    // Section sid came within reach of the viewport (NEAR) or left it.
    if (near) this.#near.add(sid);
    else this.#near.delete(sid);
  }
}
