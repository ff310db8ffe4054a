// For a page that embeds a section of the weight-tying explainer in an <iframe src=".../?embed=ID">:
// include this script once and each such iframe takes the height of its content (the embedded page
// posts {type: "wt-embed-height", height} whenever its content resizes). A message is used only if
// it comes from the window of one of this page's iframes and from the origin of that iframe's src.
// See docs/EMBED.md.
"use strict";
(() => {
  const MAX = 20000; // px: a height beyond this is not a real section
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "wt-embed-height" || !Number.isFinite(data.height)) return;
    for (const frame of document.getElementsByTagName("iframe")) {
      if (frame.contentWindow !== event.source) continue;
      let origin;
      try { origin = new URL(frame.src, document.baseURI).origin; } catch { return; }
      if (event.origin !== origin) return;
      frame.style.height = `${Math.min(Math.max(Math.ceil(data.height), 0), MAX)}px`;
      frame.dataset.wtHeight = String(Math.ceil(data.height));
      return;
    }
  });
})();
