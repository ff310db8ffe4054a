// window.__wt, the page's one hook for tests and bench (docs/DESIGN.md, "Page and worker"): read-only. The page's
// modules never use it (they are handed each other by main.js); it shows the live objects, so what a test reads is
// current, but none of its names can be set or added (frozen: a strict-mode write throws, any other does nothing).

// The lab's state (labstate.js's LabState, startLab's result) the hook shows, each read when asked: a restart replaces
// lab, worker, ready, ...
export const LAB = ["status", "progress", "label", "error", "missing", "notes", "timings", "worker", "lab", "ready",
  "pool", "early", "runs", "near", "crashes", "patchesSent", "patchesReceived", "lastPatchAt", "queueHighWater",
  "cspViolations", "heartbeat", "restart", "playerMoved"];

export function hook({ config, transport, address, page, player, lab }) {
  // {config, transport, address, page, player}, query (the address bar's), and the lab's LAB names, as getters.
  const shown = (get) => ({ get, enumerable: true });
  const names = { query: shown(() => address.query) };
  for (const name of LAB) names[name] = shown(() => lab[name]);
  return Object.freeze(Object.defineProperties({ config, transport, address, page, player }, names));
}
