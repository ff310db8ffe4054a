// Slot HTML from a worker that ran the reader's code (the code lab's Run before Panel) is untrusted input: that code
// could have rewritten anything in the worker's Python. inert() makes nodes of it only when every element and
// attribute is one the page's own renderer draws (the config's "vocabulary", weighttying.render.vocabulary), and
// otherwise throws an Error whose message says, in a reader's words, the first thing it refused. The served page's
// CSP is a second layer; this one has to hold on a host that sends none.

// Words that load or run something where a browser reads a value as a URL or as CSS; no attribute the page writes
// has a URL, so any of them in any value is refused.
const DENIED = ["url(", "javascript:", "expression(", "@import"];
const SHOWN = 40; // characters of a refused name or value a message quotes

// A value as a browser's CSS or URL parser reads it: CSS escapes decoded (u\72l( is url(), then every space and
// control character dropped (a URL's scheme ignores tabs and newlines), then lower case.
function plain(value) {
  const char = (n) => (n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : "\ufffd");
  return value
    .replace(/\\([0-9a-f]{1,6})[ \t\n\r\f]?|\\([^0-9a-f])/gi, (_, hex, other) => (hex ? char(parseInt(hex, 16)) : other))
    .replace(/[\s\p{Cc}]+/gu, "")
    .toLowerCase();
}

// The vocabulary as sets, or an Error if the page's build sent none.
function rules(vocabulary) {
  const lists = ["tags", "attributes", "classes", "styles"];
  if (!vocabulary || !lists.every((k) => Array.isArray(vocabulary[k])) || !(vocabulary.max_chars > 0)) {
    throw new Error("this page's build has no vocabulary to check it against");
  }
  const [tags, attributes, classes, styles] = lists.map((k) => new Set(vocabulary[k]));
  return { tags, attributes, classes, styles, maxChars: vocabulary.max_chars };
}

const quoted = (text) => (text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);
const an = (word) => (/^[aeio]/i.test(word) ? "an" : "a"); // "an <img>", "a <use>"
const megabytes = (chars) => Number((chars / 1e6).toFixed(1));

// Why attribute attr may not be drawn, or null. An on* name is refused whatever the vocabulary says.
function attributeRefused(attr, allowed) {
  const name = attr.name;
  if (/^on/i.test(name) || !allowed.attributes.has(name)) return `it has ${an(name)} ${quoted(name)} attribute`;
  const word = DENIED.find((w) => plain(attr.value).includes(w));
  if (word) return `it has ${word} in ${name}`;
  const strange = name === "class" && attr.value.split(/\s+/).find((c) => c && !allowed.classes.has(c));
  if (strange) return `it has class="${quoted(strange)}", a class this page never writes`;
  if (name === "style" && !allowed.styles.has(attr.value.trim())) {
    return `it has style="${quoted(attr.value)}", a style this page never writes`;
  }
  return null;
}

// Why element el may not be drawn, or null: its name (HTML or SVG only), then each attribute.
function elementRefused(el, allowed) {
  if (!allowed.namespaces.includes(el.namespaceURI) || !allowed.tags.has(el.localName)) {
    return `it has ${an(el.localName)} <${quoted(el.localName)}> element, which this page never draws`;
  }
  for (const attr of el.attributes) {
    const why = attributeRefused(attr, allowed);
    if (why) return why;
  }
  return null;
}

// The first refusal in document order under root, or null. Text and comments are not checked: parsed text is
// never markup again, and a comment neither loads nor runs; the checked nodes themselves move into the page
// (never serialized and parsed again, where a comment's or a text's characters could become markup).
function firstRefused(root, allowed) {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.nextNode(); el; el = walker.nextNode()) {
    const why = elementRefused(el, allowed);
    if (why) return why;
  }
  return null;
}

// HTML as a DocumentFragment of doc, checked against vocabulary (the page config's "vocabulary"), or an Error saying
// what was refused. One string at most max_chars long: a caller with several slots checks their sum as well.
export function inert(html, vocabulary, doc = document) {
  const allowed = rules(vocabulary);
  if (typeof html !== "string") throw new Error(`it is ${html === null ? "null" : typeof html}, not HTML text`);
  if (html.length > allowed.maxChars) {
    throw new Error(`it is ${megabytes(html.length)} MB, over this page's ${megabytes(allowed.maxChars)} MB for one answer`);
  }
  // A document with no window: parsing in it runs no script and loads nothing, and a <div> parses as a slot does.
  const box = doc.implementation.createHTMLDocument("").createElement("div");
  // HTML's and SVG's namespaces, as this parser names them (their URIs are names, never fetched)
  box.innerHTML = "<svg></svg>";
  allowed.namespaces = [box.namespaceURI, box.firstChild.namespaceURI];
  box.innerHTML = html;
  const why = firstRefused(box, allowed);
  if (why) throw new Error(why);
  const out = doc.createDocumentFragment();
  for (const node of [...box.childNodes]) out.append(doc.adoptNode(node));
  return out;
}
