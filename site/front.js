// The page's front (weighttying.front), before Python and without it.
// The opening figure: a click or tap on a token's word or row, or the arrow keys on the focused figure, pick the
// token whose row is read on the way in; the caption names it. Its tied/untied switch is CSS alone (style.css).
// The contents: open beside the article where style.css fixes it there, marking the section in view; elsewhere a
// closed jump menu that a jump or Escape closes again.

export function installFront(doc) {
  installIdea(doc);
  installContents(doc);
}

function installIdea(doc) {
  const svg = doc.querySelector("svg[data-testid=idea]");
  if (!svg) return;
  const box = svg.closest("figure");
  const words = [...svg.querySelectorAll("text[data-row]")].map((t) => t.textContent);
  const keys = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

  function pick(token) {
    svg.dataset.token = token;
    for (const el of svg.querySelectorAll("[data-row]")) el.classList.toggle("wt-on", Number(el.dataset.row) === token);
    for (const word of box.querySelectorAll(".wt-idea-word")) word.textContent = words[token];
  }

  svg.addEventListener("click", (event) => {
    const hit = event.target.closest("[data-row]");
    if (hit) pick(Number(hit.dataset.row));
  });
  svg.addEventListener("keydown", (event) => {
    const now = Number(svg.dataset.token), last = words.length - 1;
    const to = event.key === "Home" ? 0 : event.key === "End" ? last : event.key in keys ? now + keys[event.key] : null;
    if (to === null) return;
    event.preventDefault(); // the arrows move the pick, not the page
    pick(Math.min(last, Math.max(0, to)));
  });
}

function installContents(doc) {
  const nav = doc.querySelector("nav.wt-toc");
  if (!nav) return;
  installMenu(nav);
  markInView(doc, nav);
}

function installMenu(nav) {
  // Open beside the article where style.css fixes it there (wide: whether it was at the last resize); elsewhere a
  // closed menu that a jump or Escape closes again.
  const menu = nav.querySelector("details");
  const beside = () => getComputedStyle(nav).position === "fixed";
  let wide = beside();
  menu.open = wide;
  window.addEventListener("resize", () => {
    if (beside() !== wide) menu.open = wide = beside();
  });
  const close = () => {
    if (!beside()) menu.open = false;
  };
  nav.addEventListener("click", (event) => {
    if (event.target.closest("a")) close();
  });
  nav.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || beside() || !menu.open) return;
    close();
    menu.querySelector("summary").focus();
  });
}

function markInView(doc, nav) {
  // The section in view: the last, in page order, with a part in the top 40 % of the window.
  const links = new Map([...nav.querySelectorAll("a[href^='#']")].map((a) => [a.getAttribute("href").slice(1), a]));
  const seen = new Set();
  const mark = (entries) => {
    for (const entry of entries) entry.isIntersecting ? seen.add(entry.target.id) : seen.delete(entry.target.id);
    const current = [...links.keys()].filter((id) => seen.has(id)).pop();
    for (const [id, a] of links) {
      if (id === current) a.setAttribute("aria-current", "location");
      else a.removeAttribute("aria-current");
    }
  };
  if (!window.IntersectionObserver) return;
  const observer = new IntersectionObserver(mark, { rootMargin: "0px 0px -60% 0px" });
  for (const id of links.keys()) {
    const target = doc.getElementById(id);
    if (target) observer.observe(target);
  }
}
