// The address bar, one writer. Each section's values have one holder at a time: the player (playback, before
// Python) until the section's hand-over, Python after it (until a restart puts the prerender and the player back).
// A holder's values are the section's in the URL; anyone else's are kept aside (Python's, for its hand-over) or
// refused (the player's, once Python holds the section). The query is rules.toQuery over them (state.js, as
// state.to_query writes it), so a kind that never enters a link (free text, a file) never does: the player's values
// of those are carried to Python beside the query instead (carried), so a text typed before Python is in the live
// section after its hand-over. This module is the page's one caller of history.replaceState.

export function startAddress(rules, loc = location, hist = history) {
  let values = rules.parseQuery(loc.search).values; // {key: value} as the URL shows it
  const python = new Set(); // the sections Python holds (handed over)
  const fromPython = {}; // sid -> Python's latest values of that section, held or not
  const A = {
    query: loc.search.slice(1), // what the URL holds (until the first write: as the page was opened)
    moved: 0, // how many times the player changed a value no link holds (the query does not show those moves)
    holder: (sid) => (python.has(sid) ? "python" : "player"),
    fromPlayer, fromPython: takePython, handOver, restart, hash, reread, bootQuery, carried,
    dropFragment: () => write(""), // a shared link's code, once the editor has read it (share_code.js)
  };
  const unlinked = (c) => !rules.kind(c).url;
  let opened = loc.search.slice(1); // the link as the reader opened it, until Python's first boot has read it

  function bootQuery() {
    // What Python starts from: the link as opened the first time (so it names what it refused of it; the player's
    // values then follow as a state), the URL's query after a restart.
    const q = opened === null ? A.query : opened;
    opened = null;
    return q;
  }

  function reread() {
    // The URL as it is now (the page's load, a restart: the player syncs from it; a test may have set it).
    values = rules.parseQuery(loc.search).values;
    A.query = loc.search.slice(1);
  }

  function put(sid, vals) {
    for (const c of rules.section(sid)) if (c.key in vals) values[c.key] = vals[c.key];
  }

  function write(hash = loc.hash) {
    A.query = rules.toQuery(values);
    try {
      hist.replaceState(hist.state, "", (A.query ? `?${A.query}` : loc.pathname) + hash);
    } catch (err) { // a browser may refuse a file:// page its own query: links still carry A.query (page.js)
      console.info(`weighttying: the address bar keeps its old settings here (${err.message}); copied links have the current ones`);
    }
  }

  function fromPlayer(sid, vals) {
    // The player's values of section sid ({key: value}); false (nothing written) when Python holds it.
    if (python.has(sid)) return false;
    if (rules.section(sid).some((c) => unlinked(c) && c.key in vals && vals[c.key] !== values[c.key])) A.moved += 1;
    put(sid, vals);
    write();
    return true;
  }

  function carried(sids) {
    // {key: value} of the player's values no link holds, of sections sids (all if not given) the player still holds:
    // what Python takes beside the query (schedule.js), never written to the URL.
    const out = {};
    for (const sid of sids || rules.sections) {
      if (python.has(sid)) continue;
      for (const c of rules.section(sid)) if (unlinked(c) && values[c.key] !== c.default) out[c.key] = values[c.key];
    }
    return out;
  }

  function takePython(batch) {
    // Python's values, {sid: {key: value}}: written for the sections it holds, kept for the others' hand-over.
    let held = false;
    for (const [sid, vals] of Object.entries(batch)) {
      fromPython[sid] = { ...fromPython[sid], ...vals };
      if (python.has(sid)) {
        put(sid, vals);
        held = true;
      }
    }
    if (held) write();
  }

  function handOver(sids) {
    // The sections now live: Python holds them, and what it holds for them (e.g. a derived value) is the truth.
    for (const sid of sids) {
      python.add(sid);
      put(sid, fromPython[sid] || {});
    }
    if (sids.length) write();
  }

  function restart() {
    // The worker is gone: the player holds every section again, from the values the URL shows.
    python.clear();
    Object.keys(fromPython).forEach((sid) => delete fromPython[sid]);
  }

  function hash(id) {
    // The section anchor a copied link points at (page.js).
    write(`#${id}`);
  }

  return A;
}
