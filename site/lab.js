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
  // Everything the page keeps about one worker: its phase (go, here) and its Worker (boot.js's start). Each part of
  // the lab keeps what it needs of the worker in a record of its own, made when the worker starts and written by
  // that part alone, which the others ask (tests/node/labrecord.test.mjs): watch (watch.js: the heartbeat and the
  // lifeline), schedule (schedule.js: the reader's changes queued, the builds asked for), handover (handover.js: the
  // sections, their documents, what is linked and live, the worker's patches), scripts (scripts.js: BokehJS and
  // Panel, loaded for it).
  return { phase, worker: null, watch: null, schedule: null, handover: null, scripts: null };
}

export const booted = (lab) => !!lab && !["paused", "starting"].includes(lab.phase);

export function stop(lab) {
  // The lab's worker ends, and its timers with it (a paused lab has none).
  clearInterval(lab.watch?.heartbeat);
  clearTimeout(lab.schedule?.idleTimer);
  if (lab.worker) lab.worker.terminate();
}
