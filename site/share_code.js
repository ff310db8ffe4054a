// The code lab's shared code: the reader's backward in a link's fragment (after "#"), which a browser never sends to
// a server, so the code stays out of the query, the address bar's query and every export. A fragment is
//   code=<format>.<check>.<payload>
// format "z1": payload = base64url (no padding) of the code's UTF-8 compressed by CompressionStream("deflate-raw");
// format "t1": payload = base64url of the UTF-8 itself, written where the browser has no CompressionStream;
// check = hash(code) below, 8 hex digits, so a link cut short or edited by hand says so instead of showing other code
// (it is no defence against anyone: shared code never runs until the reader presses Run). A new format takes a new
// marker; a marker this page does not know is refused by name.
// installShare wires the editor's bar (codelab.js): Share copies such a link; opening one shows its code, unrun, with
// the reader's own edit kept and one press away, then takes the fragment out of the address bar.

export const KEY = "code=";
const ZIPPED = "z1", PLAIN = "t1";
const BYTES_PER_CHAR = 4; // UTF-8's longest character: max_chars characters are at most this many bytes

/** FNV-1a of text's UTF-16 code units, 8 hex digits: a name for a text (not a check against anyone). */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/** A link's code could not be used: `why` is the sentence the editor's bar shows. */
export class ShareError extends Error {
  constructor(why) {
    super(why);
    this.why = why;
  }
}

function base64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unbase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new ShareError("its code is not base64url");
  return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}

async function streamed(bytes, transform, most, tooLong = "") {
  // bytes through a (de)compression stream, refused (TOO_LONG) past MOST bytes out: a small link may inflate to
  // gigabytes
  const reader = new Blob([bytes]).stream().pipeThrough(transform).getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > most) {
      reader.cancel().catch(() => {});
      throw new ShareError(tooLong);
    }
    parts.push(value);
  }
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}

function deflateRaw(Stream) {
  // A (De)CompressionStream of deflate-raw, or null where the browser has none (or one without deflate-raw: an
  // engine from before 2023 knows only gzip and deflate, and refuses the name)
  try {
    return typeof Stream === "function" ? new Stream("deflate-raw") : null;
  } catch {
    return null;
  }
}

/** The fragment (without "#") carrying text, compressed where this browser can: {fragment, zipped}. */
export async function encode(text, env = globalThis) {
  const utf8 = new TextEncoder().encode(text), zip = deflateRaw(env.CompressionStream);
  const payload = zip ? await streamed(utf8, zip, Infinity) : utf8;
  return { fragment: `${KEY}${zip ? ZIPPED : PLAIN}.${hash(text)}.${base64url(payload)}`, zipped: !!zip };
}

/** True when FRAGMENT (location.hash, with or without "#") is a shared code's, whether or not it reads. */
export function isShared(fragment) {
  return fragment.replace(/^#/, "").startsWith(KEY);
}

/** The code a shared fragment carries, at most maxChars characters; a ShareError says why not. */
export async function decode(fragment, maxChars, env = globalThis) {
  const body = fragment.replace(/^#/, "").slice(KEY.length);
  // the longest payload maxChars characters make, compressed or not, with room for deflate's block headers
  const longest = Math.ceil(((maxChars * BYTES_PER_CHAR) + 1024) * 4 / 3) + 32;
  const tooLong = `its code is longer than the editor takes (${maxChars} characters)`;
  if (body.length > longest) throw new ShareError(tooLong);
  const [format, check, payload, ...rest] = body.split(".");
  if (format !== ZIPPED && format !== PLAIN) {
    throw new ShareError(`its code is in a format this page does not read (“${format.slice(0, 12)}”)`);
  }
  if (!/^[0-9a-f]{8}$/.test(check || "") || payload === undefined || rest.length) {
    throw new ShareError("it is not a whole shared code");
  }
  const unzip = format === ZIPPED ? deflateRaw(env.DecompressionStream) : null;
  if (format === ZIPPED && !unzip) {
    throw new ShareError("this browser cannot decompress it (it has no DecompressionStream for deflate-raw; a current " +
      "Chrome, Edge, Firefox or Safari can)");
  }
  let bytes = unbase64url(payload);
  try {
    if (unzip) bytes = await streamed(bytes, unzip, maxChars * BYTES_PER_CHAR, tooLong);
  } catch (err) {
    throw err instanceof ShareError ? err : new ShareError("its compressed code is damaged");
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ShareError("its code is not UTF-8 text");
  }
  const chars = [...text].length; // characters as Python counts them (the code control's max_chars)
  if (chars > maxChars) {
    throw new ShareError(`its code is ${chars} characters, more than the editor takes (${maxChars})`);
  }
  if (hash(text) !== check) throw new ShareError("its code does not match its check: the link was cut short or edited");
  return text;
}

/** The editor bar's Share and a shared link's opening, over the editor's text. */
class SharedCode {
  #bar; // the bar's elements (codelab.js controlsOf): share, back, link, said, note
  #view; // the editor, whose text is shared and replaced
  #original; // the page's code
  #maxChars; // the code control's max_chars: the most a link carries
  #hold; // hold(on): while on, the browser keeps the reader's own edit and not the editor's text
  #pageUrl; // () => this page's link with the current query
  #dropFragment; // () => void: the address bar's one writer takes the fragment out
  #mine = null; // the reader's own edit while a link's code is shown (null: none to go back to)

  constructor(bar, view, { original, maxChars, hold, pageUrl, dropFragment }) {
    [this.#bar, this.#view, this.#original, this.#maxChars] = [bar, view, original, maxChars];
    [this.#hold, this.#pageUrl, this.#dropFragment] = [hold, pageUrl, dropFragment];
  }

  async share() {
    // Share: a link to the editor's code, copied to the clipboard or else selected for the reader to copy.
    const bar = this.#bar, code = this.#text(), chars = [...code].length;
    bar.link.hidden = true;
    if (chars > this.#maxChars) {
      bar.said.textContent = `Your code is ${chars} characters, more than a link carries (${this.#maxChars}): ` +
        "no link was made.";
      return;
    }
    const { fragment, zipped } = await encode(code);
    const url = `${this.#pageUrl()}#${fragment}`;
    const longer = zipped ? "" : " (not compressed: this browser has no CompressionStream)";
    bar.link.value = url;
    bar.link.hidden = false;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(url);
      bar.said.textContent = `Link to this code copied to the clipboard${longer}. The code rides in the part after #, ` +
        "which is never sent to a server.";
    } catch {
      bar.said.textContent = `Copying was not allowed here: the link${longer} is selected below, ` +
        "press Ctrl+C (⌘C on a Mac).";
      bar.link.focus();
      bar.link.select();
    }
  }

  async open() {
    // The code of a shared link in the address bar, shown unrun, the reader's own edit kept; none: nothing changes.
    const fragment = location.hash;
    if (!isShared(fragment)) return;
    let code;
    try {
      code = await decode(fragment, this.#maxChars);
    } catch (err) {
      const why = err.why || err.message;
      this.#tell(`The link you opened carries code this page could not read: ${why}. Nothing was changed.`, true);
      return;
    }
    // out of the address bar once read (address.js, its one writer), so a reload does not put it over later edits
    if (location.hash === fragment) this.#dropFragment();
    if (this.#mine === null && this.#text() !== this.#original) this.#mine = this.#text();
    this.#hold(this.#mine !== null);
    this.#put(code);
    this.#bar.back.hidden = this.#mine === null;
    const kept = this.#mine === null ? "." : "; your own edit is kept:";
    this.#tell(`Code from the link you opened, not run until you press Run${kept}`, true);
  }

  back() {
    // Back to my edit: the reader's own edit in the editor again, kept by the browser again.
    this.#hold(false);
    this.#put(this.#mine);
    this.#mine = null;
    this.#bar.back.hidden = true;
    this.#tell("Your own edit is back (Undo shows the link's code again).");
  }

  #text() {
    return this.#view.state.doc.toString();
  }

  #put(code) {
    // one change over the whole text, which the editor's Undo takes back
    this.#view.dispatch({ changes: { from: 0, to: this.#view.state.doc.length, insert: code } });
  }

  #tell(said, shown = false) {
    // the bar's line says where the editor's code came from (or why a link's did not come); SHOWN: scrolled into view
    this.#bar.note.textContent = said;
    if (shown) this.#bar.note.closest(".wt-codelab-bar").scrollIntoView({ block: "end" });
  }
}

/** Wire the editor's bar (codelab.js) to share its code and to open a shared link's. bar: the bar's elements
 * (codelab.js controlsOf); view: the editor; original: the page's code; maxChars: the code control's; hold(on):
 * while on, the browser keeps the reader's own edit and not the editor's text; pageUrl(): this page's link with the
 * current query; dropFragment(): takes the fragment out of the address bar. Returns the opening of the page's link. */
export function installShare(bar, view, options) {
  const shared = new SharedCode(bar, view, options);
  bar.share.disabled = false;
  bar.share.addEventListener("click", () => shared.share().catch((err) => {
    bar.said.textContent = `No link was made: ${err.message}.`;
  }));
  bar.back.addEventListener("click", () => shared.back());
  window.addEventListener("hashchange", () => shared.open()); // a link's code pasted into this tab's address bar
  return shared.open();
}
