// The page's front (weighttying.front), before Python and without it.
// The opening figure: a click or tap on a token's word or row, or the arrow keys on the focused figure, pick the
// token whose row is read on the way in; the caption names it. Its tied/untied switch is CSS alone (style.css).

export function installFront(doc) {
  installIdea(doc);
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
