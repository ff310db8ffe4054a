// Page-level reader features that need no Python: theme, embed, live=click and teacher-mode layout (applied
// before the page is painted: the page's script runs in <head>), dismissible notes, and the embed's height messages
// to the host page; the links to share are links.js's. The Page fields (theme, embed, hide, live, projector) are
// read by the page's state rules (site/state.js over weighttying.state's data), as Python reads them; Python reports
// bad values in #wt-notes. URL text is never parsed as markup: only a value the rules accept (a section id or
// control key the build named) ever reaches a CSS selector, a data attribute or a text field's value.

import { Links } from "./links.js";

export class Page {
  theme; // theme=light|dark pins the scheme; auto follows prefers-color-scheme, live
  scheme; // the scheme at load, light or dark (html's data-wt-scheme says the current one: boot.js sends it to Panel)
  embed; // ?embed=ID: the one section shown ("" once no such section is found)
  hide; // ?hide=prose,ID,...: teacher mode's list (its words, "prose" and "controls", are state.HIDE_WORDS)
  live; // live=click: the live lab (Python) loads only when the reader presses its button (boot.js)
  projector; // projector=1: large type, thick lines, big controls (style.css, html.wt-projector)
  copied = null; // the link last copied or shown to copy (links.js)
  height; // the height last told to the host page, embedded
  #root = document.documentElement; // where the layout's classes and data attributes go
  #embedRule = null; // the style element that hides every section but the embedded one
  #links; // the share links, which carry the address's query (links.js)

  constructor(rules, address) {
    // rules: site/state.js's Codec; address: the address bar's one writer (address.js).
    const { values } = rules.parseQuery(location.search);
    this.hide = values.hide ? values.hide.split(rules.hideSep) : [];
    Object.assign(this, { theme: values.theme, embed: values.embed, live: values.live, projector: values.projector });
    this.#applyTheme();
    this.#applyLayout(rules);
    this.#links = new Links(this, address);
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => this.#init(), { once: true });
    else this.#init();
  }

  #applyTheme() {
    const media = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;
    const scheme = () => (this.theme !== "auto" ? this.theme : media && media.matches ? "dark" : "light");
    this.#root.dataset.wtTheme = this.theme;
    this.#root.dataset.wtScheme = this.scheme = scheme();
    if (media && this.theme === "auto") media.addEventListener("change", () => { this.#root.dataset.wtScheme = scheme(); });
  }

  #applyLayout(rules) {
    // Embed, teacher mode and projector mode, by CSS before the first paint.
    const root = this.#root, hide = this.hide;
    if (this.embed) root.classList.add("wt-embed");
    if (hide.includes("prose")) root.classList.add("wt-hide-prose");
    this.#embedRule = addStyle("wt-embed-rule", this.embed ? [`.wt-section:not(#${this.embed}) { display: none !important; }`] : []);
    addStyle("wt-hide-rules", hide.filter((t) => rules.sections.includes(t)).map((id) => `#${id}.wt-section { display: none !important; }`));
    // Locked controls: the playback controls go as the live lab's do (all of them, or single keys).
    const hiddenKeys = hide.filter((t) => rules.byKey.has(t) && rules.byKey.get(t).section !== "page");
    addStyle("wt-hide-controls", [...(hide.includes("controls") ? [".wt-player .wt-pctls { display: none !important; }"] : []),
      ...hiddenKeys.map((key) => `.wt-player .wt-ctl-${key.replace(".", "-")} { display: none !important; }`)]);
    if (this.projector) root.classList.add("wt-projector");
  }

  #init() {
    // Once the page is parsed.
    if (this.embed && !document.querySelector(`section.wt-section#${this.embed}`)) {
      // No such section: show the whole page (Python's note in #wt-notes says why).
      this.#embedRule.remove();
      this.#root.classList.remove("wt-embed");
      this.embed = "";
    }
    this.#links.install();
    const dismiss = document.getElementById("wt-notes-dismiss");
    if (dismiss) dismiss.addEventListener("click", () => { document.getElementById("wt-notes").hidden = true; });
    if (this.embed && window.parent !== window && window.ResizeObserver) {
      new ResizeObserver(() => this.#postHeight()).observe(document.body);
      this.#postHeight();
    }
  }

  #postHeight() {
    // Embedded: tell the host page how tall the content is (embed.js sizes the iframe from it).
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height !== this.height) {
      this.height = height;
      window.parent.postMessage({ type: "wt-embed-height", height, section: this.embed }, "*");
    }
  }
}

function addStyle(id, css) {
  // A style element of CSS rules in <head> (none for no rules).
  if (!css.length) return null;
  return document.head.appendChild(Object.assign(document.createElement("style"), { id, textContent: css.join("\n") }));
}
