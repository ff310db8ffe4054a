// The worker's messages to the page (docs/DESIGN.md, "Page and worker"): Panel's pyodide-worker protocol per
// section (render / patch / idle) plus ours (lifeline, pong, progress, timing, sections, linked, values, notes,
// pool-run, pool-cancel, error).
import { booted, go } from "./lab.js";

export class Messages {
  // state: the lab's state (labstate.js); address: takes Python's values; pool: runs the parts Python hands it;
  // current(lab): lab is still the lab's; the rest are the lab's parts (boot.js) this asks.
  constructor({ state, address, pool, current, watch, status, scripts, scheduler, sections }) {
    Object.assign(this, { state, address, pool, current, watch, status, scripts, scheduler, sections });
  }

  onMessage(lab, event) {
    const { state, address, pool, current, watch, status, scheduler, sections } = this;
    const msg = event.data;
    if (!current(lab)) return; // a terminated worker's last words
    lab.heardAt = performance.now();
    switch (msg.type) {
      case "lifeline": // the worker holds its lock: wait on it; it is granted when the worker ends
        lab.lifeline = true;
        navigator.locks.request(lab.lockName, () => {
          if (current(lab) && booted(lab)) watch.crashed("the Python worker stopped", performance.now() - lab.heardAt);
          else if (current(lab)) status.fail("The Python worker stopped while starting.");
        }).catch(() => { lab.lifeline = false; }); // a page the browser denies locks: the heartbeat alone
        break;
      case "pong":
        if (msg.n === lab.pingN) lab.pingAt = 0;
        state.pong();
        break;
      case "progress":
        status.setStatus("booting", msg.label, msg.fraction);
        if (msg.step === "import" || msg.step === "app") this.scripts.need(lab);
        break;
      case "timing":
        state.timing(msg.name, msg.ms);
        break;
      case "sections": // Python is set up: it builds the sections the page asks for, one at a time
        Object.assign(go(lab, "sections"), { sections: msg.sections, synced: msg.query, base: state.progress });
        scheduler.pump(lab);
        break;
      case "render":
        go(lab, "render"); // Python is free again while this thread embeds the section
        sections.render(lab, msg).catch((e) => { console.error(e); status.fail(`Showing the live section ${msg.sid} failed: ${e.message}`); });
        scheduler.pump(lab);
        break;
      case "linked":
        lab.linked.add(msg.sid);
        lab.building = null;
        setTimeout(() => scheduler.pump(lab), 0); // after the patches it sent before (applyPatches) are applied
        break;
      case "patch":
        // Applied in a task of its own, not here: a worker that dies with many patches sent would
        // otherwise be noticed (its lifeline granted) only after the page had applied every one of them.
        state.patchReceived();
        lab.patches.push(msg);
        if (lab.patches.length === 1) setTimeout(() => sections.applyPatches(lab), 0);
        break;
      case "idle":
        go(lab, "idle");
        if (lab.queue.length) scheduler.pump(lab); // the reader's next change, at once
        else setTimeout(() => scheduler.pump(lab), 0); // after the patches just received (applyPatches) are applied
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
      case "error":
        if (msg.crashed && booted(lab)) watch.crashed(`Python failed fatally (${msg.message})`);
        else status.fail(msg.message, msg.fatal);
        break;
      default:
        console.warn("unknown message from the worker", msg);
    }
  }
}
