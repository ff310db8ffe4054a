// Bokeh's widgets leave three things unnamed for a screen reader: a slider's handle (its title sits beside
// it), a spinner's up/down buttons (drawn as arrows) and a checkbox (its label is a <div>). Each is named
// from the widget's own visible title, in every shadow root under a live section, again whenever Bokeh
// redraws one: an observer on each shadow root re-runs the pass on the roots that changed.
import { withShadowRoots } from "./dom.js";

const named = new WeakSet(); // shadow roots already observed
let renamer = null; // made at the first pass: importing this module has no side effects (node --test)
const text = (el) => (el ? el.textContent.trim() : "");
export function nameControls(root) {
  // root's controls and those of every shadow root under it; a shadow root met for the first time is observed
  renamer = renamer || new MutationObserver((records) => new Set(records.map((r) => r.target.getRootNode())).forEach(nameControls));
  for (const r of withShadowRoots(root)) {
    if (r !== root && !named.has(r)) {
      named.add(r);
      renamer.observe(r, { childList: true, subtree: true });
    }
    nameIn(r);
  }
}

function nameIn(root) {
  // the unnamed controls of root itself (not of the shadow roots under it)
  const set = (el, name) => { if (name && el.getAttribute("aria-label") !== name) el.setAttribute("aria-label", name); };
  for (const handle of root.querySelectorAll("[role=slider]")) {
    const title = root.querySelector(".bk-slider-title");
    set(handle, text(title).slice(0, text(title).length - text(title && title.querySelector(".bk-slider-value")).length).replace(/:\s*$/, ""));
  }
  const field = text(root.querySelector("label[for]"));
  for (const [cls, verb] of [[".bk-spin-btn-up", "increase"], [".bk-spin-btn-down", "decrease"]]) {
    for (const btn of root.querySelectorAll(cls)) set(btn, field && `${verb} ${field}`);
  }
  for (const box of root.querySelectorAll("input[type=checkbox]")) set(box, text(box.parentNode.querySelector(".bk-label")));
}
