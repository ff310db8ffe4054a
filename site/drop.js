// A file dropped anywhere on a live section that reads files (own text) goes to that section's file box, as if
// chosen there, so the box's checks (size, UTF-8: Python's) apply. A file dropped anywhere else is refused in
// place: the browser would otherwise open it in this tab, and the reader would lose the page.
import { queryDeep } from "./dom.js";

const hasFiles = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");

export function fileBox(path) {
  // the file input of the live section on an event's composed path, if it has one
  const section = path.find((el) => el.id && el.id.startsWith("live-") && el.dataset && el.dataset.live === "true");
  return section ? queryDeep(section, "input[type=file]") : null;
}

export function installDrop(doc) {
  doc.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = fileBox(e.composedPath()) ? "copy" : "none";
  });
  doc.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    const box = fileBox(e.composedPath());
    if (!box || !e.dataTransfer.files.length) return;
    box.files = e.dataTransfer.files;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  });
}
