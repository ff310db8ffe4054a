// Robustness: a dead, hung, crashed or fatally failed worker is replaced without a reload (boot.js's header says
// how it is seen). A worker's death is seen at once through a Web Lock it holds (the "lifeline"; secure contexts
// such as 127.0.0.1). The heartbeat catches a worker stuck in one call: with a lifeline a silence is only a hang,
// so it may last HUNG_MS (a long synchronous Python call is slow, not dead); without one (plain http on a
// LAN address) a silence of DEAD_MS is all there is to go on.
import { $ } from "./dom.js";
import { booted } from "./lab.js";

export const PING_MS = 150, DEAD_MS = 650, HUNG_MS = 8000, TICK_MS = 50;
const BOOT_SILENCE_MS = 90_000; // booting, Python may be busy for seconds (import panel) but not this long
const MAX_CRASHES = 3, CRASH_WINDOW_MS = 60_000;

export class Watch {
  // state: the lab's state (labstate.js: its crashes, error, ready, pongs); address, player: put back in charge by a
  // restart; current(lab): lab is still the lab's; sections: handover.js's (its prerenders come back);
  // failedAssets: status.js's watchAssets's; stopWorker(), start(): boot.js's; status: status.js's.
  constructor({ state, address, player, current, sections, failedAssets, stopWorker, status, start }) {
    Object.assign(this, { state, address, player, current, sections, failedAssets, stopWorker, status, start });
  }

  begin(lab) {
    // LAB's worker has just started: its watch (lab.watch, this part's alone) ticks, and asks for its lifeline.
    // heardAt: the last word heard; pingAt, pingN: the ping in flight (0: none) and its number; sentAt: the last ping
    // sent; tickAt: the last tick; lifeline: true once the worker holds its Web Lock (lockName), false if the page is
    // denied locks; heartbeat: the tick's interval.
    lab.watch = { heardAt: performance.now(), pingAt: 0, pingN: 0, sentAt: 0, tickAt: 0, lifeline: undefined,
      lockName: "", heartbeat: setInterval(() => this.heartbeat(lab), TICK_MS) };
    if (navigator.locks) {
      lab.watch.lockName = `weighttying-worker-${Math.random().toString(36).slice(2)}`;
      lab.worker.postMessage({ type: "lifeline", name: lab.watch.lockName });
    }
  }

  heard(lab) {
    // A word from LAB's worker, any word.
    lab.watch.heardAt = performance.now();
  }

  ponged(lab, n) {
    // The worker answered ping N (an answer to an older ping leaves the one in flight in flight).
    if (n === lab.watch.pingN) lab.watch.pingAt = 0;
    this.state.pong();
  }

  lifeline(lab) {
    // The worker holds its lock: wait on it; it is granted when the worker ends.
    lab.watch.lifeline = true;
    navigator.locks.request(lab.watch.lockName, () => {
      if (this.current(lab) && booted(lab)) this.crashed("the Python worker stopped", performance.now() - lab.watch.heardAt);
      else if (this.current(lab)) this.status.fail("The Python worker stopped while starting.");
    }).catch(() => { lab.watch.lifeline = false; }); // a page the browser denies locks: the heartbeat alone
  }

  heartbeat(lab) {
    // Booted: a ping unanswered for DEAD_MS means the worker is gone or stuck in one long call.
    // Booting: Python holds the thread for seconds at a time, so only a long total silence counts.
    const beat = lab.watch;
    if (!this.current(lab)) return clearInterval(beat.heartbeat);
    const now = performance.now();
    if (lab.phase === "starting" || lab.schedule.building) { // Python may be inside a long call: setting up, or building a section
      if (now - beat.heardAt > BOOT_SILENCE_MS) this.status.fail(`The Python worker stopped responding while starting (no word for ${Math.round(BOOT_SILENCE_MS / 1000)} s).`);
      return;
    }
    const gap = now - (beat.tickAt || now);
    beat.tickAt = now;
    // This page's own thread was held up (or asleep): that time does not count against the worker, whose
    // answer may be queued behind us. The clock pauses rather than restarts, so stalls cannot postpone
    // the verdict on a hung worker for ever.
    if (gap > 4 * TICK_MS && beat.pingAt) beat.pingAt += gap - TICK_MS;
    if (beat.pingAt && now - beat.pingAt > (beat.lifeline ? HUNG_MS : DEAD_MS)) {
      this.crashed(`the Python worker stopped responding (no answer for ${Math.round(now - beat.pingAt)} ms)`,
        now - beat.pingAt);
    } else if (!beat.pingAt && now - beat.sentAt >= PING_MS) {
      beat.pingN += 1;
      beat.pingAt = beat.sentAt = now;
      lab.worker.postMessage({ type: "ping", n: beat.pingN });
    }
  }

  crashed(reason, silentMs = 0) {
    // A worker that booted and then died: replace it, restoring the state from the URL (the worker
    // wrote it after every change), and say so. Loops are cut short after MAX_CRASHES. A Run in progress is not
    // started again by the new worker: that Run may be what ended this one.
    const { state, status } = this;
    const now = performance.now();
    state.crash({ reason, at: now, noticedAfterMs: silentMs });
    console.warn(`weighttying: ${reason}; starting a new worker`);
    const recent = state.crashes.filter((c) => now - c.at < CRASH_WINDOW_MS).length;
    if (recent > MAX_CRASHES) {
      status.fail(`It stopped ${recent} times in a minute; the last time because ${reason}.`);
      return;
    }
    this.restart({ auto: true });
    const detail = `Because ${reason}, a new one was started with the settings in this page's address; ` +
      "a run that was in progress has to be started again.";
    state.said(detail);
    status.say("restarted", "The live lab stopped and is restarting.", detail, false);
    state.ready.then(() => {
      if (state.error === detail) status.say("restarted", "The live lab stopped and was restarted; your settings are back.", detail, false);
    }, () => {});
  }

  restart(options = {}) {
    // A fresh worker without reloading the page: live views go, prerendered content comes back.
    // The Retry button and tests call it; options.auto is a crash restart (the crash count is kept).
    this.stopWorker();
    if (!options.auto) this.state.forgetCrashes();
    this.sections.putBack();
    this.address.restart(); // the player holds every section again
    this.player.sync(); // the controls and slots of the URL's state
    $("wt-error").hidden = true;
    this.failedAssets.clear();
    this.status.showNotes([]);
    // A stylesheet of the page that failed to load is asked for again (a view's come with the views).
    document.querySelectorAll("link[rel=stylesheet]").forEach((l) => { if (!l.sheet) l.replaceWith(l.cloneNode()); });
    this.start();
    return this.state.ready;
  }
}
