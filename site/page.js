// Page-level reader features that need no Python: theme, embed, live=click and teacher-mode layout (applied
// before the page is painted: the page's script runs in <head>), copy-link controls, dismissible notes,
// and the embed's height messages to the host page. The Page fields (theme, embed, hide, live, projector) are read by the
// page's state rules (site/state.js over weighttying.state's data), as Python reads them; Python reports bad
// values in #wt-notes. URL text is never parsed as markup: only a value the rules accept (a section id or
// control key the build named) ever reaches a CSS selector, a data attribute or a text field's value.

import { pageLinks } from "./links.js";

export function startPage(rules, address) {
  // rules: site/state.js's codec; address: the address bar's one writer (address.js), whose query the shared links
  // carry. Returns the page's state (theme, embed, hide, live, projector, copied).
  const root = document.documentElement;
  const { values } = rules.parseQuery(location.search);
  // its words ("prose", "controls") are state.HIDE_WORDS (tests/test_page_data.py checks this file names no other)
  const hide = values.hide ? values.hide.split(rules.hideSep) : [];

  // Theme: theme=light|dark pins the scheme; auto follows prefers-color-scheme, live.
  const theme = values.theme;
  const media = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;
  const scheme = () => (theme !== "auto" ? theme : media && media.matches ? "dark" : "light");
  root.dataset.wtTheme = theme;
  root.dataset.wtScheme = scheme(); // boot.js sends this to the worker for Panel's theme
  if (media && theme === "auto") media.addEventListener("change", () => { root.dataset.wtScheme = scheme(); });

  // Embed (?embed=ID) and teacher mode (?hide=prose,ID,...): hide by CSS before the first paint.
  const embed = values.embed;
  if (embed) root.classList.add("wt-embed");
  if (hide.includes("prose")) root.classList.add("wt-hide-prose");
  const addRules = (id, css) => {
    if (!css.length) return null;
    const style = Object.assign(document.createElement("style"), { id, textContent: css.join("\n") });
    return document.head.appendChild(style);
  };
  const embedRule = addRules("wt-embed-rule", embed ? [`.wt-section:not(#${embed}) { display: none !important; }`] : []);
  addRules("wt-hide-rules", hide.filter((t) => rules.sections.includes(t)).map((id) => `#${id}.wt-section { display: none !important; }`));
  // Locked controls: the playback controls go as the live lab's do (all of them, or single keys).
  const hiddenKeys = hide.filter((t) => rules.byKey.has(t) && rules.byKey.get(t).section !== "page");
  addRules("wt-hide-controls", [...(hide.includes("controls") ? [".wt-player .wt-pctls { display: none !important; }"] : []),
    ...hiddenKeys.map((key) => `.wt-player .wt-ctl-${key.replace(".", "-")} { display: none !important; }`)]);

  // live=click: the live lab (Python) loads only when the reader presses its button (boot.js).
  // projector=1: large type, thick lines, big controls (style.css, html.wt-projector).
  if (values.projector) root.classList.add("wt-projector");
  const state = { theme, scheme: root.dataset.wtScheme, embed, hide, live: values.live, projector: values.projector, copied: null };

  const { shareUrl, copy, reproLinks, sectionLinks } = pageLinks(state, address);

  function postHeight() {
    // Embedded: tell the host page how tall the content is (embed.js sizes the iframe from it).
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height !== state.height) {
      state.height = height;
      window.parent.postMessage({ type: "wt-embed-height", height, section: embed }, "*");
    }
  }

  function init() {
    if (embed && !document.querySelector(`section.wt-section#${embed}`)) {
      // No such section: show the whole page (Python's note in #wt-notes says why).
      embedRule.remove();
      root.classList.remove("wt-embed");
      state.embed = "";
    }
    sectionLinks();
    reproLinks();
    window.addEventListener("beforeprint", reproLinks);
    if (window.matchMedia) matchMedia("print").addEventListener("change", (e) => { if (e.matches) reproLinks(); });
    const button = document.getElementById("wt-copy");
    if (button) button.addEventListener("click", () => copy(shareUrl(""), button));
    const box = document.getElementById("wt-share-box");
    if (box) {
      box.querySelector(".wt-share-close").addEventListener("click", () => { box.hidden = true; });
      box.addEventListener("keydown", (e) => { if (e.key === "Escape") box.hidden = true; });
    }
    const dismiss = document.getElementById("wt-notes-dismiss");
    if (dismiss) dismiss.addEventListener("click", () => { document.getElementById("wt-notes").hidden = true; });
    if (state.embed && window.parent !== window && window.ResizeObserver) {
      new ResizeObserver(postHeight).observe(document.body);
      postHeight();
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init, { once: true });
  else init();
  return state;
}
