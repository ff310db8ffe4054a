// What the page says about the live lab: the progress bar and status line, the error box, the notes on the
// link's values, and the page's own files that failed to load (named in the error box, with Retry).
import { booted, go } from "./lab.js";
import { $, whenDom } from "./dom.js";

export class StatusLine {
  // state: the lab's state (labstate.js), which it asks to hold what the page says; stopWorker(): boot.js's.
  constructor({ state, stopWorker }) {
    this.state = state;
    this.stopWorker = stopWorker;
  }

  showProgress() {
    whenDom(() => {
      const bar = $("wt-progress");
      bar.value = Math.round(this.state.progress * 100);
      bar.textContent = `${bar.value}%`;
      $("wt-status").textContent = this.state.label;
      $("wt-boot").dataset.state = this.state.status;
    });
  }

  setStatus(status, label, progress = this.state.progress) {
    this.state.setStatus(status, label, progress);
    document.documentElement.dataset.wtStatus = status;
    this.showProgress();
  }

  say(kind, title, message, retry) {
    // The error box: one bold line saying what state the lab is in, then one readable line of why.
    whenDom(() => {
      $("wt-error-msg").textContent = message;
      $("wt-error").querySelector("strong").textContent = title;
      $("wt-error").dataset.kind = kind;
      $("wt-retry").hidden = !retry;
      $("wt-error").hidden = false;
    });
  }

  fail(message, fatal = true) {
    // A readable line on the page; the details (tracebacks) are in the console, logged where they arose.
    const { state } = this;
    state.said(message);
    const after = booted(state.lab);
    this.say(fatal ? (after ? "stopped" : "failed") : "change",
      !fatal ? "The last change could not be applied."
        : after ? "The live lab stopped." : "The live lab could not start.", message, fatal);
    if (fatal) {
      if (state.lab && state.lab.phase !== "failed") go(state.lab, "fail");
      this.stopWorker();
      this.setStatus("failed", "Failed");
      state.failed(new Error(message));
    }
  }

  showNotes(notes) {
    this.state.setNotes(notes);
    whenDom(() => {
      const list = $("wt-notes-list");
      list.replaceChildren(...notes.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
      $("wt-notes").hidden = notes.length === 0;
    });
  }
}

export function watchAssets({ state, config, failedAssets, status }) {
  // Files the page itself loads (its stylesheet, Panel's CSS, scripts): Resource Timing records a failed
  // one with status 0 (network) or >= 400. The lab may still work, but the reader is told which file
  // failed and gets Retry (restart() re-creates the views, which ask for their stylesheets again).
  if (window.PerformanceObserver) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const bad = e.responseStatus === 0 || e.responseStatus >= 400;
        if (!bad || !["link", "css", "script"].includes(e.initiatorType) || !e.name.startsWith(location.origin)) continue;
        const file = e.name.slice(new URL(".", location.href).href.length).split("?")[0];
        // the boot failure already says what failed; a page script's failure fails the boot (ScriptLoader.load)
        if (state.status === "failed" || config.scripts.includes(file)) continue;
        failedAssets.add(file);
        state.said(`could not load ${[...failedAssets].join(", ")} from this site`);
        status.say("asset", "Part of the page could not be loaded.", `${state.error}; the lab may look or work wrong until it is retried.`, true);
      }
    }).observe({ type: "resource", buffered: true });
  }
  document.addEventListener("securitypolicyviolation", (e) => {
    state.csp({ directive: e.effectiveDirective, blocked: e.blockedURI });
  });
}
