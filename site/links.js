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

export function pageLinks(state, address) {
  // state: the page's (page.js: embed, copied); address: the address bar's one writer, whose query the links carry.

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
    } catch {
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
        a.href = shareUrl(address, section.id);
        a.target = "_blank";
        a.rel = "noopener";
      } else {
        a.href = `#${section.id}`;
        a.title = "Copy the link to this section with its current settings";
        a.setAttribute("aria-label", `Copy link to the section “${heading.textContent.trim()}” with its current settings`);
        a.addEventListener("click", (event) => {
          event.preventDefault();
          address.hash(section.id);
          copy(shareUrl(address, section.id), heading);
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
        p.append("Reproduce this section: ", document.createElement("a"));
        section.append(p);
      }
      const a = p.querySelector("a");
      a.href = a.textContent = shareUrl(address, section.id);
    }
  }

  return { shareUrl: (section) => shareUrl(address, section), copy, reproLinks, sectionLinks };
}
