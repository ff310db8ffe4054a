// The page's links: the one to share (this page with the current query, from the address bar's one writer,
// site/address.js), copied to the clipboard or shown selected; each section's anchor that copies it; and, for
// print only, the link that reproduces each section's settings.

/** The link to share: this page (http or file://) with the current query of ADDRESS, the address bar's one writer
 * (address.js keeps address.query and, where the browser lets it, location.search current), without embed=,
 * pointing at SECTION if given. */
export function shareUrl(address, section = "") {
  // The query as the writer wrote it (state.to_query's escaping): URLSearchParams would write it again, commas
  // escaped, and the shared link would differ from the address bar.
  const query = address.query.split("&").filter((part) => part && !part.startsWith("embed=")).join("&");
  return `${location.href.split(/[?#]/)[0]}${query ? `?${query}` : ""}${section ? `#${section}` : ""}`;
}

export class Links {
  // The page's links to share, each carrying the address's query.
  #page; // the page's state (page.js): embed, and copied, the link last copied
  #address; // the address bar's one writer, whose query the links carry

  constructor(page, address) {
    this.#page = page;
    this.#address = address;
  }

  install() {
    // Once the page is parsed: each section's anchor, the print links (kept current whenever the page is printed or
    // saved as PDF), the page's copy button and its box.
    this.sectionLinks();
    this.reproLinks();
    window.addEventListener("beforeprint", () => this.reproLinks());
    if (window.matchMedia) matchMedia("print").addEventListener("change", (e) => { if (e.matches) this.reproLinks(); });
    const button = document.getElementById("wt-copy");
    if (button) button.addEventListener("click", () => this.copy(shareUrl(this.#address), button));
    const box = document.getElementById("wt-share-box");
    if (box) {
      box.querySelector(".wt-share-close").addEventListener("click", () => { box.hidden = true; });
      box.addEventListener("keydown", (e) => { if (e.key === "Escape") box.hidden = true; });
    }
  }

  async copy(url, near) {
    // Clipboard first; if the browser refuses, show the link selected in a text field.
    const box = document.getElementById("wt-share-box");
    near.after(box);
    box.hidden = false;
    const field = box.querySelector("input");
    field.value = url;
    this.#page.copied = url;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(url);
      box.dataset.mode = "copied";
      say(box, "Link copied to the clipboard.");
    } catch {
      box.dataset.mode = "select";
      say(box, "Copying was not allowed here: the link is selected below, press Ctrl+C (⌘C on a Mac).");
      field.focus();
      field.select();
    }
  }

  sectionLinks() {
    // Each section's heading gets its anchor: one that copies the section's link, or, embedded, one to the full page.
    for (const section of document.querySelectorAll("section.wt-section[id]")) {
      const heading = section.querySelector("h2");
      if (!heading || heading.querySelector(".wt-anchor")) continue;
      const a = document.createElement("a");
      a.className = "wt-anchor";
      a.textContent = "#";
      if (this.#page.embed) {
        a.textContent = "Open in the full explainer ↗";
        a.href = shareUrl(this.#address, section.id);
        a.target = "_blank";
        a.rel = "noopener";
      } else {
        a.href = `#${section.id}`;
        a.title = "Copy the link to this section with its current settings";
        a.setAttribute("aria-label", `Copy link to the section “${heading.textContent.trim()}” with its current settings`);
        a.addEventListener("click", (event) => {
          event.preventDefault();
          this.#address.hash(section.id);
          this.copy(shareUrl(this.#address, section.id), heading);
        });
      }
      heading.append(" ", a);
    }
  }

  reproLinks() {
    // Under each section, for print only (style.css): the link that reproduces its settings.
    for (const section of document.querySelectorAll("section.wt-section[id]")) {
      let p = section.querySelector(":scope > .wt-repro");
      if (!p) {
        p = Object.assign(document.createElement("p"), { className: "wt-repro" });
        p.append("Reproduce this section: ", document.createElement("a"));
        section.append(p);
      }
      const a = p.querySelector("a");
      a.href = a.textContent = shareUrl(this.#address, section.id);
    }
  }
}

function say(box, text) {
  box.querySelector(".wt-share-status").textContent = text;
}
