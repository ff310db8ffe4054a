// BokehJS and Panel (1.5 MB of script to parse and run) are needed only once Python has built the
// sections, seconds later: they are added after the page's first frame (need), so they never hold
// back the prose or the playback controls' first answers.
export class ScriptLoader {
  loaded = new Set(); // the scripts that have run: a retry loads only the rest

  // firstPaint: a promise of the page's first frame; current(lab): lab is still the lab's; status: status.js's.
  constructor({ config, transport, firstPaint, current, status }) {
    Object.assign(this, { config, transport, firstPaint, current, status });
  }

  need(lab) {
    // Asked for once Python has its packages (seconds before it has built the sections), not at once.
    if (!lab.scripts) {
      lab.scripts = this.firstPaint.then(() => this.transport.ready).then(() => this.load());
      lab.scripts.catch((e) => { if (this.current(lab)) this.status.fail(e.message); });
    }
    return lab.scripts;
  }

  load() {
    // Downloads in parallel, runs in order (async=false); each failure names its file.
    const { config, loaded } = this;
    const missing = config.scripts.filter((src) => !loaded.has(src));
    return Promise.all(missing.map((src) => new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = this.transport.url(src);
      s.async = false;
      if (config.integrity && config.integrity[src]) s.integrity = config.integrity[src]; // refuse a modified file
      s.onload = () => {
        if (!config.scripts.slice(0, config.scripts.indexOf(src)).some((before) => !loaded.has(before))) loaded.add(src);
        resolve();
      };
      s.onerror = () => {
        s.remove();
        // The scripts after this one ran without it (BokehJS before its widgets, Panel): run them again too.
        config.scripts.slice(config.scripts.indexOf(src) + 1).forEach((later) => loaded.delete(later));
        reject(new Error(`could not load ${src} from this site (missing, or not the file this build recorded)`));
      };
      document.head.appendChild(s);
    })));
  }
}
