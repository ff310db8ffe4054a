// The classroom file's inline scripts run only if they are the ones built (its CSP lists their sha256): one that
// was edited is refused by the browser. refusals() starts listening and returns what to say once one was (or null).
export function refusals() {
  let refused = null;
  document.addEventListener("securitypolicyviolation", (e) => {
    if (e.blockedURI !== "inline" || !e.effectiveDirective.startsWith("script-src")) return;
    refused = `a script inside this file was modified or damaged (it begins "${e.sample}"), so the browser refused to run it`;
  });
  return () => refused;
}
