// Live answers before Panel. While the Panel worker is still loading, a setting off a section's playback grid
// (a typed value, a slider beyond the grid), which playback can only approximate, is computed by a numerics
// worker of the page's pool (site/pool.js's ask; weighttying.early: the same views.<id>.slots the live section
// draws) and put into the section's slots, marked live; Panel's section, when it takes over, shows the same bytes.
// player.js tells this module of every answer it plays (played); a section answers so when its table says
// early (its results follow every control). Data saver: nothing starts before the reader asks for the lab.
export const LIVE_LINE = "Computed live in your browser by this page's own code (NumPy, in a worker of its own) " +
  "while the rest of the live lab loads; its controls take over when Python has loaded.";

export function createEarly({ player: P, pool, paused }) {
  // P: the player (its tables, state and query); pool: site/pool.js's; paused(): the lab waits for the reader's go.
  const E = { asked: 0, answered: 0, firstAt: 0, shown: {}, played };
  const latest = {}; // section id -> the state (JSON) asked for last; null once it is back on the grid

  const playerOf = (sid) => document.querySelector(`.wt-player[data-section="${sid}"]`);

  function played(sid, off) {
    // The player just showed section sid's table answer; off: nearest only (its state is off the grid).
    const t = P.tables[sid], el = playerOf(sid);
    const key = off && t && t.early && !paused() ? JSON.stringify(P.state[sid]) : null;
    latest[sid] = key;
    if (el) delete el.dataset.early;
    if (!key || !pool.size) return;
    E.asked += 1;
    const t0 = performance.now();
    pool.ask({ section: sid, query: P.query(sid) }).then((text) => {
      if (latest[sid] === key) show(sid, JSON.parse(text), performance.now() - t0); // else the reader moved on
    }, (err) => console.info(`weighttying: no live answer for ${sid} before the live lab (${err.message}); it shows the nearest precomputed one`));
  }

  function show(sid, slots, ms) {
    // The worker's slots in place of the nearest ones, and the section's line says they are live.
    const el = playerOf(sid);
    if (!el) return; // Panel took the section over meanwhile
    const section = el.closest(".wt-live") || document;
    for (const [name, html] of Object.entries(slots)) {
      const slot = section.querySelector(`.wt-slot[data-slot="${name}"]`);
      if (!slot) continue;
      slot.innerHTML = html;
      slot.dataset.frag = "live"; // no table fragment: the player's next answer replaces it
      slot.classList.remove("wt-approx");
    }
    Object.assign(el.dataset, { approx: "false", early: "true" });
    el.querySelector(".wt-player-status").textContent = LIVE_LINE;
    E.answered += 1;
    E.firstAt = E.firstAt || performance.now();
    E.shown[sid] = { ms, at: performance.now() };
  }

  return E;
}
