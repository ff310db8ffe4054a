// The page as the lab's parts reach it: an element by id, and work that needs the page parsed (the page's script
// runs in <head>).
export const $ = (id) => document.getElementById(id);
export const whenDom = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn, { once: true }) : fn());
// root and every shadow root under it, outermost first, in document order (Bokeh draws its widgets in shadow roots)
export function* withShadowRoots(root) {
  yield root;
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) yield* withShadowRoots(el.shadowRoot);
}
// the first match of sel under root, shadow roots included (null: none)
export function queryDeep(root, sel) {
  for (const r of withShadowRoots(root)) {
    const hit = r.querySelector(sel);
    if (hit) return hit;
  }
  return null;
}
