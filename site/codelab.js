// The code lab's editor: CodeMirror 6 from npm, bundled into wt.js, in the section's prose
// (.wt-codelab-editor), so it is the page's own: it works before Python and stays put through the hand-over. Its
// text is the `codelab.code` control's (a kind no link holds): each edit is written into that control's text area,
// the prerender's before Python (player.js carries it to the live lab) and the live section's after, as typing
// there would. The text it starts from is that control's default, the lesson's source emitted at build.
import { EditorState } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, drawSelection, highlightActiveLineGutter, highlightSpecialChars, keymap,
  lineNumbers } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { hash, installShare } from "./share_code.js";
import { queryDeep, whenDom, withShadowRoots } from "./dom.js";

const HOST = ".wt-codelab-editor";
const BOX = "wt-code-input"; // the code control's text area (controls.py), or the live widget's host (app/store.py)
// Its accessible name says how a keyboard leaves it: Tab indents inside it (CodeMirror: Escape, then Tab, moves on)
const NAME = "Your backward, Python code. Press Escape then Tab to leave the editor.";

// The live section (Panel renders each of its widgets in a shadow root), or null before its hand-over
const liveSection = (doc) => doc.querySelector("#live-codelab[data-live=true]");

/** The code control's text area in the section: the live one once the section is live, else the prerender's. */
export function box(doc = document) {
  const live = liveSection(doc);
  for (const root of live ? withShadowRoots(live) : []) {
    const area = root.host?.closest?.(`.${BOX}`) && root.querySelector("textarea"); // the live widget's own box
    if (area) return area;
  }
  return doc.querySelector(`#live-codelab textarea.${BOX}`);
}

function written(text, doc) {
  // The editor's text into the control's box, with the events typing there sends (input; change, as on a blur).
  const target = box(doc);
  if (!target || target.value === text) return;
  target.value = text;
  target.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  target.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
}

// localStorage: the reader's edit, under the hash (share_code.js) of the original it was made from
const KEPT = "weighttying.codelab.";
const MARK_MS = 600; // how often the editor looks at the verdict for the reader's line

/** What the browser kept: {text, note} for the edit to show (null: none), given the page's ORIGINAL. */
export function restored(storage, original) {
  const mine = KEPT + hash(original);
  try {
    const same = storage.getItem(mine);
    if (same !== null && same !== original) return { text: same, note: "Restored your edit from your last visit." };
    const older = Object.keys(storage).find((k) => k.startsWith(KEPT) && k !== mine);
    if (older) {
      return { text: storage.getItem(older), key: older, note: "Restored your edit; the page's code has changed since " +
        "you made it: “Reset to the page's code” shows the new one (Undo brings your edit back)." };
    }
  } catch { /* no storage here (a private window, a policy): nothing was kept */ }
  return null;
}

function keep(storage, original, text) {
  // The edit under the original's hash ("" for the original itself: nothing kept), older originals' edits dropped.
  try {
    for (const k of Object.keys(storage)) if (k.startsWith(KEPT)) storage.removeItem(k);
    if (text !== original) storage.setItem(KEPT + hash(original), text);
  } catch { /* full or refused: the edit lives on in this page only */ }
}

function verdict(doc) {
  // The section's verdict element: in the live section's shadow roots, else the prerender's.
  const live = liveSection(doc), sel = "[data-testid=codelab-verdict]";
  return (live && queryDeep(live, sel)) || doc.querySelector(`#live-codelab ${sel}`);
}

function sayUnderRun(doc, v) {
  // Live, the line under the editor's Run repeats the verdict on the editor's code (data-editor), which may sit
  // screens below on a phone; a named bug's verdict is not about that code, so the line is then empty. Before the
  // live section, earlyrun.js speaks there.
  const line = doc.querySelector("[data-run-said=codelab]");
  if (!line) return;
  const mine = v?.dataset.editor === "true";
  line.textContent = mine ? v.dataset.value : "";
  line.classList.toggle("wt-bad", mine && v.classList.contains("wt-bad"));
}

class Marks {
  // The reader's line (and column) the verdict names, marked in the editor; cleared when it names none.
  #view; // the editor
  #doc; // the page, where the verdict is
  #said = ""; // the verdict last marked ("line:words"), so an unchanged one is not marked again

  constructor(view, doc) {
    this.#view = view;
    this.#doc = doc;
  }

  update() {
    const view = this.#view, v = verdict(this.#doc), line = Number(v?.dataset.line || 0);
    const text = v ? `${line}:${v.dataset.editor}:${v.dataset.value}` : "";
    if (text === this.#said) return;
    this.#said = text;
    if (liveSection(this.#doc)) sayUnderRun(this.#doc, v);
    const diagnostics = [];
    if (line >= 1 && line <= view.state.doc.lines) {
      const at = view.state.doc.line(line), column = Number(v.dataset.column || 1);
      diagnostics.push({ from: Math.min(at.from + column - 1, at.to), to: at.to, severity: "error", message: v.dataset.value });
    }
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }
}

// The editor's whole text replaced by CODE: one edit, which Undo takes back
const replaceCode = (view, code) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });

function controlsOf(host, view, original, storage, run) {
  // The bar under the editor the build wrote (controls.editor_still): Run (RUN()), "Reset to the page's code", the line
  // saying what was restored (or came from a link, share_code.js) and its "Back to my edit", "Share this code" and
  // its line
  const [go, reset, note, back, share, said, link] = ["run", "reset", "restored", "back", "share", "share-said",
    "share-link"].map((id) => host.querySelector(`[data-testid=codelab-${id}]`));
  go.disabled = reset.disabled = false;
  go.addEventListener("click", run);
  reset.addEventListener("click", () => replaceCode(view, original));
  const kept = restored(storage, original);
  if (kept) {
    replaceCode(view, kept.text);
    note.textContent = kept.note;
  }
  return { note, back, share, said, link };
}

class KeptEdit {
  // The reader's edit in the browser's storage (keep): at a pause in typing, and at once on Run and when the page goes
  // away (a reload right after an edit must find it).
  held = false; // a link's code is shown over the reader's own edit, which stays kept as it was (share_code.js)
  #storage; // localStorage, or a test's stand-in
  #original; // the page's code, whose hash names the edit
  #unsaved = null; // the edit typed since the last keep (null: none)
  #pause = 0; // the timer of the keep that waits for a pause in typing

  constructor(storage, original) {
    this.#storage = storage;
    this.#original = original;
  }

  edited(text) {
    this.#unsaved = text;
    clearTimeout(this.#pause);
    this.#pause = setTimeout(() => this.save(), 300);
  }

  save() {
    clearTimeout(this.#pause);
    if (this.#unsaved !== null) keep(this.#storage, this.#original, this.#unsaved);
    this.#unsaved = null;
  }
}

/** The columns of a line's leading whitespace (a tab to the next multiple of 4, CodeMirror's tab size). */
export function indentOf(line) {
  let cols = 0;
  for (const ch of line) {
    if (ch === " ") cols += 1;
    else if (ch === "\t") cols += 4 - (cols % 4);
    else break;
  }
  return cols;
}

function hangingLines(view) {
  // each visible line carries its indent (--wt-indent, site/style.css), so a line that wraps continues 4 columns
  // deeper than its own code, as a Python continuation line is written, not at the box's left edge
  const marks = [];
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to;) {
      const line = view.state.doc.lineAt(pos);
      marks.push(Decoration.line({ attributes: { style: `--wt-indent: ${indentOf(line.text)}` } }).range(line.from));
      pos = line.to + 1;
    }
  }
  return Decoration.set(marks);
}

const hanging = ViewPlugin.fromClass(class {
  constructor(view) { this.decorations = hangingLines(view); }
  update(u) { if (u.docChanged || u.viewportChanged) this.decorations = hangingLines(u.view); }
}, { decorations: (plugin) => plugin.decorations });

function extensions(doc, host, kept, run, warm) {
  // The editor's CodeMirror extensions: a Python editor whose every edit is written into the control's box and kept;
  // once the section is live, an edit has a numerics worker booted (warm) for the Run it is heading for.
  return [
    lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
    indentOnInput(), bracketMatching(), syntaxHighlighting(defaultHighlightStyle, { fallback: true }), python(),
    lintGutter(),
    keymap.of([{ key: "Mod-Enter", run: () => { run(); return true; } },
      ...defaultKeymap, ...historyKeymap, indentWithTab]),
    // on a phone a long line wraps, hanging under its own code: the box scrolls one way only
    EditorView.lineWrapping, hanging,
    EditorView.contentAttributes.of({ "aria-label": NAME, "data-testid": "codelab-editor" }),
    EditorView.updateListener.of((u) => {
      if (!u.docChanged) return;
      const text = u.state.doc.toString();
      written(text, doc);
      if (liveSection(doc)) warm();
      // held: not kept, and counted on the host (data-held), so a check can see an edit passed by unkept
      if (kept.held) host.dataset.held = String(Number(host.dataset.held || 0) + 1);
      else kept.edited(text);
    }),
  ];
}

/** The editor in HOST (null: none on this page), starting from the control's text; RUN() on Ctrl/Cmd+Enter;
 * WARM() on an edit once the section is live. */
export function mount(doc = document, run = () => {}, storage = globalThis.localStorage,
  { pageUrl, dropFragment, warm = () => {} } = {}) {
  const host = doc.querySelector(HOST), start = box(doc);
  if (!host || !start || host.dataset.mounted) return null;
  host.dataset.mounted = "true";
  const original = start.defaultValue; // the control's default: the lesson's source, emitted at build
  const kept = new KeptEdit(storage, original);
  // a Run (the bar's, or Ctrl/Cmd+Enter) takes the editor's text as it is, kept at once
  const press = () => { written(view.state.doc.toString(), doc); kept.save(); run(); };
  const view = new EditorView({ parent: host, state: EditorState.create({ doc: start.value, extensions: extensions(doc, host, kept, press, warm) }) });
  // in the still code's place, the same size (site/style.css), above the bar; code longer than the box scrolls in
  // it, and a box that scrolls is a tab stop of its own (axe's scrollable-region-focusable: a keyboard scrolls it)
  host.querySelector(".wt-codelab-still").replaceWith(view.dom);
  doc.defaultView?.addEventListener("pagehide", () => kept.save());
  Object.assign(view.scrollDOM, { tabIndex: 0 });
  view.scrollDOM.setAttribute("aria-label", "Your backward's code, scrolling");
  const bar = controlsOf(host, view, original, storage, press);
  // the code control's max_chars (state/kinds.py), which controls.py writes as the box's maxlength
  const maxChars = Number(start.getAttribute("maxlength"));
  installShare(bar, view, { original, maxChars, hold: (on) => { kept.held = on; }, pageUrl, dropFragment });
  const marks = new Marks(view, doc);
  setInterval(() => marks.update(), MARK_MS);
  // A named bug's "Put this code in the editor" (views.codelab.code_html, played back or live): its whole source,
  // one edit the editor's undo takes back
  doc.addEventListener("click", (event) => {
    const button = event.composedPath().find((el) => el.dataset?.codelabSource !== undefined);
    // never one in a slot a worker drew before Panel (earlyrun.js): that worker ran the reader's code, and a button of
    // its own there would replace the reader's edit
    if (!button || button.closest(".wt-slot[data-frag=live]")) return;
    replaceCode(view, button.dataset.codelabSource);
    view.focus();
  });
  return view;
}

/** Press the live section's Run (its Panel button), if the section is live; true when pressed. */
export function pressRun(doc = document) {
  const live = liveSection(doc);
  const button = [...(live ? withShadowRoots(live) : [])].flatMap((root) => [...root.querySelectorAll("button")])
    .find((el) => el.textContent.trim() === "Run");
  button?.click();
  return !!button;
}

/** Mount the editor once the page is parsed. */
export function installEditor(doc = document, links = {}) {
  // links: {pageUrl() (this page's link with its query), dropFragment() (the address bar's one writer drops the #),
  // warm() (the lab's pool boots a worker for the reader's code), runBefore(sid) (section sid's Run before its live
  // section is there: earlyrun.js)}. Run presses the live section's Run once it is live.
  const run = () => {
    if (!liveSection(doc)) return links.runBefore("codelab");
    // the line speaks of this Run from now on: the verdict it holds until its answer (the section holds it too), never
    // the Run before the live lab's words
    sayUnderRun(doc, verdict(doc));
    return pressRun(doc);
  };
  whenDom(() => mount(doc, run, globalThis.localStorage, links));
}
