// Live answers before Panel. While the Panel worker is still loading, a setting off a section's playback grid
// (a typed value, a slider beyond the grid), which playback can only approximate, is computed by a numerics
// worker of the page's pool (site/pool.js's ask; weighttying.early: the same views.<id>.slots the live section
// draws) and put into the section's slots, marked live; Panel's section, when it takes over, shows the same bytes.
// player.js tells this module of every answer it plays (played); a section answers so when its table says
// early (its results follow every control). Data saver: nothing starts before the reader asks for the lab.
// Opened off the grid: on a machine with few cores, a page whose link is off an early section's grid boots one
// numerics worker before the Panel worker (boot.js), since that answer is the first live thing its reader needs.
import { asRead, lookup, playerOf } from "./player.js";

export const LIVE_LINE = "Computed live in your browser by this page's own code (NumPy, in a worker of its own) " +
  "while the rest of the live lab loads; its controls take over when Python has loaded.";

export class Early {
  asked = 0; // live answers asked of the pool
  answered = 0; // live answers shown
  firstAt = 0; // performance.now() when the first was shown
  shown = {}; // section id -> {ms (asked to shown), at} of its latest shown answer
  #latest = {}; // section id -> the state (JSON) asked for last; null once it is back on the grid

  // player: the player (its tables, state and query); pool: site/pool.js's; paused(): the lab waits for the reader's go.
  constructor({ player, pool, paused }) {
    [this.player, this.pool, this.paused] = [player, pool, paused];
  }

  played(sid, off) {
    // The player just showed section sid's table answer; off: nearest only (its state is off the grid).
    const { player } = this;
    const table = player.tables[sid], el = playerOf(sid);
    const key = off && table && table.early && !this.paused() ? JSON.stringify(player.state[sid]) : null;
    this.#latest[sid] = key;
    if (el) delete el.dataset.early;
    if (!key || !this.pool.size) return;
    this.asked += 1;
    const t0 = performance.now();
    this.pool.ask({ section: sid, query: player.query(sid) }).then((text) => {
      if (this.#latest[sid] === key) this.#show(sid, JSON.parse(text), performance.now() - t0); // else the reader moved on
    }, (err) => console.info(`weighttying: no live answer for ${sid} before the live lab (${err.message}); it shows the nearest precomputed one`));
  }

  #show(sid, slots, ms) {
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
    this.answered += 1;
    this.firstAt = this.firstAt || performance.now();
    this.shown[sid] = { ms, at: performance.now() };
  }
}

/** The sections a numerics worker answers early whose setting in QUERY is off their playback grid (the page's
 * config.playback: each section's keys, values and early), read by the page's RULES (state.js's Codec). */
export function offGrid(playback, rules, query) {
  const { values } = rules.parseQuery(query);
  return Object.entries(playback).filter(([sid, grid]) => {
    if (!grid.early) return false;
    const controls = rules.section(sid).filter((c) => rules.kind(c).url);
    const st = Object.fromEntries(controls.map((c) => [c.name, values[c.key]]));
    const defaults = Object.fromEntries(controls.map((c) => [c.name, c.default]));
    return lookup(grid, asRead(rules.fills(sid), st, defaults), controls).approx.length > 0;
  }).map(([sid]) => sid);
}
