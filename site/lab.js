// One worker's life, from the page's side: one explicit state machine (MOVES) over a lab record (newLab). A lab that
// is replaced (crash, Retry) is simply no longer the current one (labstate.js's lab): its worker is terminated, its
// timers stopped (stop), and anything it still says is ignored. go() throws on a move its phase has not (naming
// the line that tried it).
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
    synced: null, moved: 0, // the query Python was last set from; address.moved when it was
    scripts: null, // the promise of BokehJS and Panel loaded for it (scripts.js)
    patching: 0, // >0 while a worker patch is applied, so it is not echoed back (handover.js, schedule.js)
    base: 0, // the progress bar's share when Python was set up (the sections fill the rest)
    idleTimer: 0, // pump again once the reader has been idle long enough (nextToBuild)
    // the watch (heartbeat): last word heard, ping in flight and its number, last ping sent, last tick; the
    // Web Lock it holds (lifeline: true once held, false if the page is denied locks)
    heardAt: performance.now(), pingAt: 0, pingN: 0, sentAt: 0, tickAt: 0, lifeline: undefined, lockName: "", heartbeat: 0,
  };
}

export const booted = (lab) => !!lab && !["paused", "starting"].includes(lab.phase);

export function stop(lab) {
  // The lab's worker ends, and its timers with it.
  clearInterval(lab.heartbeat);
  clearTimeout(lab.idleTimer);
  if (lab.worker) lab.worker.terminate();
}
