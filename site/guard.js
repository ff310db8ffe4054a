// The classroom file's guard, an inline script of its own before the page's script (tools/single_file.py). When
// the page's script is the one the browser refused (site/refusals.js), nothing of it can say so: this shows the
// error box instead. (When this one is refused, the page's script says so.)
import { GUARD_RAN, refusals } from "./refusals.js";

window[GUARD_RAN] = true; // the page's script, next, sees this guard ran
const refused = refusals();
window.addEventListener("load", () => {
  // the page's script ran (its lab set a status): it shows the failure itself
  if (!refused() || document.documentElement.dataset.wtStatus) return;
  document.getElementById("wt-error-msg").textContent = refused();
  document.getElementById("wt-retry").hidden = true;
  Object.assign(document.getElementById("wt-error"), { hidden: false }).dataset.kind = "failed";
});
