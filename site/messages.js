// The worker's messages to the page (docs/DESIGN.md, "Page and worker"): Panel's pyodide-worker protocol per
// section (render / patch / idle) plus ours (lifeline, pong, progress, timing, sections, linked, values, notes,
// pool-run, pool-cancel, runtime-offer, error).
import { booted, go } from "./lab.js";

export class Messages {
  // state: the lab's state (labstate.js); address: takes Python's values; pool: runs the parts Python hands it;
  // current(lab): lab is still the lab's; the rest are the lab's parts (boot.js) this asks, each the one writer of
  // what it keeps of a worker (lab.js's newLab).
  constructor({ state, address, pool, current, watch, status, scripts, scheduler, sections }) {
    Object.assign(this, { state, address, pool, current, watch, status, scripts, scheduler, sections });
  }

  onMessage(lab, event) {
    const { state, address, pool, current, watch, status, scheduler, sections } = this;
    const msg = event.data;
    if (!current(lab)) return; // a terminated worker's last words
    watch.heard(lab);
    switch (msg.type) {
      case "lifeline": // the worker holds its lock
        watch.lifeline(lab);
        break;
      case "pong":
        watch.ponged(lab, msg.n);
        break;
      case "progress":
        status.setStatus("booting", msg.label, msg.fraction);
        if (msg.step === "import" || msg.step === "app") this.scripts.need(lab);
        break;
      case "timing":
        state.timing(msg.name, msg.ms);
        break;
      case "sections": // Python is set up: it builds the sections the page asks for, one at a time
        go(lab, "sections");
        sections.setUp(lab, msg.sections, state.progress);
        scheduler.setUp(lab, msg.query);
        break;
      case "render":
        go(lab, "render"); // Python is free again while this thread embeds the section
        sections.render(lab, msg).catch((e) => { console.error(e); status.fail(`Showing the live section ${msg.sid} failed: ${e.message}`); });
        scheduler.pump(lab);
        break;
      case "linked":
        sections.linked(lab, msg.sid);
        scheduler.linked(lab);
        break;
      case "patch":
        state.patchReceived();
        sections.received(lab, msg);
        break;
      case "idle":
        go(lab, "idle");
        scheduler.idle(lab);
        break;
      case "values": // {sid: {key: value}}: Python's values of the sections that changed
        address.fromPython(msg.data);
        break;
      case "notes":
        status.showNotes(msg.data);
        break;
      case "pool-run": // a Run's parts for the pool; its batches go back to this worker
      case "pool-cancel":
        pool[msg.type === "pool-run" ? "run" : "cancel"](msg.data);
        break;
      case "runtime-offer": // the classroom file's module for the workers after this one (its transport hears it)
        break;
      case "error":
        if (msg.crashed && booted(lab)) watch.crashed(`Python failed fatally (${msg.message})`);
        else status.fail(msg.message, msg.fatal);
        break;
      default:
        console.warn("unknown message from the worker", msg);
    }
  }
}
