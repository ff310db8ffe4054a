// Page-level reader features that need no Python: theme, embed, live=click and teacher-mode layout (applied
// before the page is painted: this script runs in <head>), copy-link controls, dismissible notes,
// and the embed's height messages to the host page. Python validates the same URL keys again
// (weighttying.state) and reports bad values in #wt-notes; here a value that does not look right is
// simply ignored. URL text is never parsed as markup: it only ever becomes a validated token in a
// data attribute, a CSS id selector of [a-z0-9_-] characters, or a text field's value.
"use strict";
(() => {
  const root = document.documentElement;
  const params = new URLSearchParams(location.search);
  const TOKEN = /^[a-z][a-z0-9_-]{0,31}$/; // a section id or the word "prose"
  const raw = (key) => (params.getAll(key).pop() || "").trim(); // the last one counts, as in Python
  const get = (key) => raw(key).toLowerCase();

  // Theme: theme=light|dark pins the scheme; anything else follows prefers-color-scheme, live.
  const theme = ["light", "dark"].includes(get("theme")) ? get("theme") : "auto";
  const media = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;
  const scheme = () => (theme !== "auto" ? theme : media && media.matches ? "dark" : "light");
  root.dataset.wtTheme = theme;
  root.dataset.wtScheme = scheme(); // boot.js sends this to the worker for Panel's theme
  if (media && theme === "auto") media.addEventListener("change", () => { root.dataset.wtScheme = scheme(); });

  // Embed (?embed=ID) and teacher mode (?hide=prose,ID,...): hide by CSS before the first paint.
  const embed = TOKEN.test(get("embed")) ? get("embed") : "";
  const hide = raw("hide").split(",").map((t) => t.trim()).filter((t) => TOKEN.test(t));
  const hiddenSections = hide.filter((t) => t !== "prose" && t !== "controls");
  if (embed) root.classList.add("wt-embed");
  if (hide.includes("prose")) root.classList.add("wt-hide-prose");
  const addRules = (id, rules) => {
    if (!rules.length) return null;
    const style = Object.assign(document.createElement("style"), { id, textContent: rules.join("\n") });
    return document.head.appendChild(style);
  };
  const embedRule = addRules("wt-embed-rule", embed ? [`.wt-section:not(#${embed}) { display: none !important; }`] : []);
  addRules("wt-hide-rules", hiddenSections.map((id) => `#${id}.wt-section { display: none !important; }`));
  // Locked controls: the playback controls go as the live lab's do (all of them, or single keys).
  const hiddenKeys = raw("hide").split(",").map((t) => t.trim()).filter((t) => /^[a-z][a-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*$/.test(t));
  addRules("wt-hide-controls", [...(hide.includes("controls") ? [".wt-player .wt-pctls { display: none !important; }"] : []),
    ...hiddenKeys.map((key) => `.wt-player .wt-ctl-${key.replace(".", "-")} { display: none !important; }`)]);

  // live=click: the live lab (Python) loads only when the reader presses its button (boot.js).
  const live = get("live") === "click" ? "click" : "auto";
  // projector=1: large type, thick lines, big controls (style.css, html.wt-projector); on/off as state.py reads it.
  const projector = ["1", "true", "yes", "on"].includes(get("projector"));
  if (projector) root.classList.add("wt-projector");
  const state = (window.__wtPage = { theme, scheme: root.dataset.wtScheme, embed, hide, live, projector, copied: null });

  // The link to share: this page (http or file://) with the current query (boot.js keeps wt.query and,
  // where the browser lets it, location.search current), without embed=, optionally pointing at one section.
  function shareUrl(section) {
    const q = new URLSearchParams(window.__wt ? window.__wt.query : location.search);
    q.delete("embed");
    const query = q.toString();
    return `${location.href.split(/[?#]/)[0]}${query ? `?${query}` : ""}${section ? `#${section}` : ""}`;
  }

  function say(box, text) {
    box.querySelector(".wt-share-status").textContent = text;
  }

  async function copy(url, near) {
    // Clipboard first; if the browser refuses, show the link selected in a text field.
    const box = document.getElementById("wt-share-box");
    near.after(box);
    box.hidden = false;
    const field = box.querySelector("input");
    field.value = url;
    state.copied = url;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(url);
      box.dataset.mode = "copied";
      say(box, "Link copied to the clipboard.");
    } catch (err) {
      box.dataset.mode = "select";
      say(box, "Copying was not allowed here: the link is selected below, press Ctrl+C (⌘C on a Mac).");
      field.focus();
      field.select();
    }
  }

  function sectionLinks() {
    for (const section of document.querySelectorAll("section.wt-section[id]")) {
      const heading = section.querySelector("h2");
      if (!heading || heading.querySelector(".wt-anchor")) continue;
      const a = document.createElement("a");
      a.className = "wt-anchor";
      a.textContent = "#";
      if (state.embed) {
        a.textContent = "Open in the full explainer ↗";
        a.href = shareUrl(section.id);
        a.target = "_blank";
        a.rel = "noopener";
      } else {
        a.href = `#${section.id}`;
        a.title = "Copy the link to this section with its current settings";
        a.setAttribute("aria-label", `Copy link to the section “${heading.textContent.trim()}” with its current settings`);
        a.addEventListener("click", (event) => {
          event.preventDefault();
          history.replaceState(history.state, "", `#${section.id}`);
          copy(shareUrl(section.id), heading);
        });
      }
      heading.append(" ", a);
    }
  }

  // Under each section, for print only (style.css): the link that reproduces its settings, kept current
  // whenever the page is printed or saved as PDF.
  function reproLinks() {
    for (const section of document.querySelectorAll("section.wt-section[id]")) {
      let p = section.querySelector(":scope > .wt-repro");
      if (!p) {
        p = Object.assign(document.createElement("p"), { className: "wt-repro" });
        p.append("These settings: ", document.createElement("a"));
        section.append(p);
      }
      const a = p.querySelector("a");
      a.href = a.textContent = shareUrl(section.id);
    }
  }

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
})();
