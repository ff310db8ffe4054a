// The address bar, one writer. Each section's values have one holder at a time: the player (playback, before
// Python) until the section's hand-over, Python after it (until a restart puts the prerender and the player back).
// A holder's values are the section's in the URL; anyone else's are kept aside (Python's, for its hand-over) or
// refused (the player's, once Python holds the section). The query is rules.toQuery over them (state.js, as
// state.to_query writes it), so a kind that never enters a link (free text, a file) never does: the player's values
// of those are carried to Python beside the query instead (carried), so a text typed before Python is in the live
// section after its hand-over. This module is the page's one caller of history.replaceState.

export class Address {
  query; // what the URL holds (until the first write: as the page was opened)
  moved = 0; // how many times the player changed a value no link holds (the query does not show those moves)
  #rules; // site/state.js's Codec: how values are read from and written to a query
  #loc; // the page's location (a test's stand-in)
  #hist; // the page's history, whose replaceState writes the address bar
  #values; // {key: value} as the URL shows it
  #python = new Set(); // the sections Python holds (handed over)
  #pythonValues = {}; // sid -> Python's latest values of that section, held or not
  #opened; // the link as the reader opened it, until Python's first boot has read it (then null)

  constructor(rules, loc = location, hist = history) {
    this.#rules = rules;
    this.#loc = loc;
    this.#hist = hist;
    this.reread();
    this.#opened = this.query;
  }

  holder(sid) {
    // Who writes section sid's values to the URL now.
    return this.#python.has(sid) ? "python" : "player";
  }

  bootQuery() {
    // What Python starts from: the link as opened the first time (so it names what it refused of it; the player's
    // values then follow as a state), the URL's query after a restart.
    const q = this.#opened === null ? this.query : this.#opened;
    this.#opened = null;
    return q;
  }

  reread() {
    // The URL as it is now (the page's load, a restart: the player syncs from it; a test may have set it).
    this.#values = this.#rules.parseQuery(this.#loc.search).values;
    this.query = this.#loc.search.slice(1);
  }

  fromPlayer(sid, vals) {
    // The player's values of section sid ({key: value}); false (nothing written) when Python holds it.
    if (this.#python.has(sid)) return false;
    const moved = (c) => this.#unlinked(c) && c.key in vals && vals[c.key] !== this.#values[c.key];
    if (this.#rules.section(sid).some(moved)) this.moved += 1;
    this.#put(sid, vals);
    this.#write();
    return true;
  }

  carried(sids) {
    // {key: value} of the player's values no link holds, of sections sids (all if not given) the player still holds:
    // what Python takes beside the query (schedule.js), never written to the URL.
    const out = {};
    for (const sid of sids || this.#rules.sections) {
      if (this.#python.has(sid)) continue;
      for (const c of this.#rules.section(sid)) {
        if (this.#unlinked(c) && this.#values[c.key] !== c.default) out[c.key] = this.#values[c.key];
      }
    }
    return out;
  }

  fromPython(batch) {
    // Python's values, {sid: {key: value}}: written for the sections it holds, kept for the others' hand-over.
    let held = false;
    for (const [sid, vals] of Object.entries(batch)) {
      this.#pythonValues[sid] = { ...this.#pythonValues[sid], ...vals };
      if (this.#python.has(sid)) {
        this.#put(sid, vals);
        held = true;
      }
    }
    if (held) this.#write();
  }

  handOver(sids) {
    // The sections now live: Python holds them, and what it holds for them (e.g. a derived value) is the truth.
    for (const sid of sids) {
      this.#python.add(sid);
      this.#put(sid, this.#pythonValues[sid] || {});
    }
    if (sids.length) this.#write();
  }

  restart() {
    // The worker is gone: the player holds every section again, from the values the URL shows.
    this.#python.clear();
    this.#pythonValues = {};
  }

  hash(id) {
    // The section anchor a copied link points at (page.js).
    this.#write(`#${id}`);
  }

  dropFragment() {
    // A shared link's code, once the editor has read it (share_code.js).
    this.#write("");
  }

  #unlinked(c) {
    return !this.#rules.kind(c).url;
  }

  #put(sid, vals) {
    for (const c of this.#rules.section(sid)) if (c.key in vals) this.#values[c.key] = vals[c.key];
  }

  #write(hash = this.#loc.hash) {
    this.query = this.#rules.toQuery(this.#values);
    try {
      this.#hist.replaceState(this.#hist.state, "", (this.query ? `?${this.query}` : this.#loc.pathname) + hash);
    } catch (err) { // a browser may refuse a file:// page its own query: links still carry the query (links.js)
      console.info(`weighttying: the address bar keeps its old settings here (${err.message}); copied links have the current ones`);
    }
  }
}
