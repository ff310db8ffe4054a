// The classroom file's inline scripts run only if they are the ones built (its CSP lists their sha256): one that
// was edited is refused by the browser. refusals() starts listening and returns what to say once one was (or null).
// The guard (site/guard.js) runs just before the page's script and leaves GUARD_RAN; refused, it leaves nothing, and
// its violation event may have come and gone before the page's script listens (the parser can yield between them).
export const GUARD_RAN = "__wtGuardRan";

export function refusals({ afterGuard = false } = {}) {
  // afterGuard: this listener is the page script's, which the guard precedes: a guard that left no mark was refused
  const said = (which) => `a script inside this file was modified or damaged (${which}), so the browser refused to run it`;
  let refused = afterGuard && !window[GUARD_RAN] ? said("weighttying: the classroom file's guard") : null;
  document.addEventListener("securitypolicyviolation", (e) => {
    if (e.blockedURI !== "inline" || !e.effectiveDirective.startsWith("script-src")) return;
    refused = said(`it begins "${e.sample}"`);
  });
  return () => refused;
}
