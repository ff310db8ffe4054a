// The sections' playback tables (weighttying.playback), as the player (player.js) gets them: every one downloaded
// and checked against its sha256 at once, but parsed only when its section needs it (a control moved, or the URL's
// state is not the default) or when the page is idle: parsing megabytes of JSON while the page itself is still
// being parsed would hold back its first frame.
import { fetchChecked } from "./fetched.js";

export class Tables {
  tables = {}; // section id -> its table, once loaded and checked
  errors = {}; // section id -> why its table could not be used
  loaded = {}; // section id -> promise of its checked response (rejects with the reason it is unusable)
  #parsing = {}; // section id -> promise of its table parsed and told, once asked for
  #told; // {parsed(sid), failed(sid)}: the player shows a table's answer, or why there is none

  constructor(files, transport, embed, told) {
    // files: the page config's playback ({sid: {file, integrity}}); transport: where files come from (boot.js; the
    // classroom file gives each one's blob: URL once the page is parsed and unpacked); embed: the one section shown.
    this.#told = told;
    const located = transport.ready.then(() => transport.url);
    for (const sid of Object.keys(files).filter((s) => !embed || s === embed)) {
      this.loaded[sid] = located.then((url) => fetchChecked(url(files[sid].file), files[sid].integrity, files[sid].file));
      this.loaded[sid].catch(() => this.need(sid)); // a table that cannot be used is named at once
    }
    window.addEventListener("load", () => this.#parseWhenIdle(), { once: true });
  }

  need(sid) {
    // A promise of section sid's table parsed (none for a section without one, as under ?embed= another's).
    if (!this.loaded[sid]) return Promise.resolve();
    this.#parsing[sid] ||= this.loaded[sid].then((res) => res.json()).then((table) => {
      this.tables[sid] = table;
      this.#told.parsed(sid);
    }, (err) => {
      this.errors[sid] = err.message;
      console.error(`weighttying: playback table of ${sid}: ${err.message}`);
      this.#told.failed(sid);
    });
    return this.#parsing[sid];
  }

  #parseWhenIdle() {
    // One table at a time, each when the page is idle again.
    const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
    const rest = Object.keys(this.loaded);
    const next = () => { if (rest.length) this.need(rest.shift()).then(() => idle(next)); };
    idle(next);
  }
}
