// The page's state rules, applied before Python: how a URL value is read, clamped and written, how a choice fills
// in other controls, how a file box reads a file. Every constant and word of them is data weighttying.state emits
// (state.rules: the value syntax and words, the notes, each control's kind, default and bounds, presets, FILLS, what a
// link leaves unescaped, a file box's words), in the page config as "state"; the code is state/'s (url.py, files.py,
// presets.py), line for line, over it, plus how Python's repr, quote and UTF-8 decoder behave. tests/url_cases.json runs in pytest and node, and
// both check that its cases run every branch, so a link reads alike in both languages.

export function fmt(x) {
  // state.fmt: the URL form of a value (Python's repr for floats, 1/0 for booleans). repr writes a float's shortest
  // round-tripping digits, positionally for exponents -4 to 15, else with a signed exponent of at least two digits;
  // a whole number as an int (state.fmt). The shared cases (url_cases.json "fmt") hold Python's answers.
  if (typeof x === "boolean") return x ? "1" : "0";
  if (typeof x !== "number") return String(x);
  const [mantissa, power] = x.toExponential().split("e"); // the shortest digits that round-trip, as repr's
  const e = Number(power);
  if (e >= -4 && e < 16) return String(x); // repr writes these positionally, as String does
  return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

export function quote(text, keeps) {
  // urllib.parse.quote(text, safe=state.URL_SAFE), the escaping of state.to_query: keeps (state.url_keeps) as they
  // are, every other character as its UTF-8 bytes percent-encoded.
  const percent = (ch) => [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`);
  return [...text].map((ch) => (keeps.includes(ch) ? ch : percent(ch).join(""))).join("");
}

export function fill(fills, values, defaults, changed = "") {
  // state.fill: the updates that make each choice of FILLS agree with the fields it fills in. values and
  // defaults are {field: value} of one section; changed is the field just set, or "" for a state from a link.
  const out = {};
  for (const [key, rule] of Object.entries(fills)) {
    const want = rule.by[values[key]];
    if (!want || Object.entries(want).every(([f, v]) => values[f] === v)) continue;
    if (changed === key || (!changed && Object.keys(want).every((f) => values[f] === defaults[f]))) {
      Object.assign(out, want);
    } else if (!changed || changed in want) {
      out[key] = rule.else;
    }
  }
  return out;
}

const chars = (s) => [...s]; // Python counts code points, not UTF-16 units

export class Codec {
  // The reader of the page's URL that rules (state.rules) describe: parseQuery, read, toQuery, defaults. A control's
  // kind is a row of rules.kinds; what is done with a value follows that row's properties (url, syntax, max_chars).
  byKey; // key -> its control (a row of rules.controls)
  sections; // the page's section ids, in page order
  hideSep; // what separates the tokens of a hide list
  #rules; // state.rules, as the build emits it
  #hideTokens; // state.HIDE_TOKENS: what a hide list may name
  #told; // rules.notes: how a note quotes and joins what it names
  // state.READERS: {value (null if unusable), note (null if none)} for a stripped value, by the kind's url form
  #readers = { number: this.#number, onoff: this.#onoff, words: this.#words, list: this.#list };

  constructor(rules) {
    this.#rules = rules;
    this.byKey = new Map(rules.controls.map((c) => [c.key, c]));
    this.sections = rules.sections;
    this.hideSep = rules.hide_sep;
    this.#hideTokens = new Set(rules.hide_tokens);
    this.#told = rules.notes;
  }

  kind(c) {
    // Control c's kind: its row of rules.kinds.
    return this.#rules.kinds[c.kind];
  }

  section(sid) {
    // The controls of section sid, in page order.
    return this.#rules.controls.filter((c) => c.section === sid);
  }

  fills(sid) {
    // Section sid's FILLS: {field: {by: {choice: {field: value}}, else: value}}.
    return this.#rules.fills[sid] || {};
  }

  defaults() {
    // {key: default} of every control.
    return Object.fromEntries(this.#rules.controls.map((c) => [c.key, c.default]));
  }

  read(c, text) {
    // state.parse_value: {value (null if unusable), note (null if none)} for one raw value of control c.
    const k = this.kind(c);
    if (!k.url) return { value: null, note: this.#say("never_linked", { key: c.key }) };
    const raw = this.#strip(String(text));
    if (chars(raw).length > k.max_chars) {
      return { value: null, note: this.#say("too_long", { key: c.key, chars: chars(raw).length, limit: k.max_chars }) };
    }
    return this.#readers[k.url].call(this, c, raw);
  }

  parseQuery(query) {
    // state.parse_query: {values: {key: value} of every control, notes: [text]}; never throws.
    const values = this.defaults(), notes = [], seen = new Map();
    for (const [key, raw] of new URLSearchParams(query)) {
      seen.set(key, (seen.get(key) || 0) + 1);
      const c = this.byKey.get(key);
      if (!c) {
        if (seen.get(key) === 1) notes.push(this.#say("unknown_key", { raw: this.#show(key) }));
        continue;
      }
      const { value, note } = this.read(c, raw);
      if (note) notes.push(note);
      if (value !== null) values[key] = value;
    }
    for (const [key, n] of seen) if (n > 1 && this.byKey.has(key)) notes.push(this.#say("repeated", { key, n }));
    return { values, notes };
  }

  toQuery(values) {
    // state.to_query: every value that differs from its default and may enter a link, in page order.
    return this.#rules.controls.filter((c) => c.key in values && values[c.key] !== c.default && this.kind(c).url)
      .map((c) => `${c.key}=${quote(fmt(values[c.key]), this.#rules.url_keeps)}`).join("&");
  }

  decoded(bytes, limit, size = bytes.length) {
    // state.decoded: {text (null if unusable), problem ("" if none)} of a file's bytes: UTF-8 of at most limit bytes.
    // size: the file's, where only its first limit + 1 bytes were read (a file over the limit is not read whole).
    if (!size) return { text: null, problem: "" };
    if (size > limit) {
      const tenths = Math.floor(size / (this.#rules.mb / 10));
      const mb = `${Math.floor(tenths / 10)}.${tenths % 10}`;
      return { text: null, problem: this.said("too_big", { mb, limit_mb: fmt(limit / this.#rules.mb) }) };
    }
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), problem: "" };
    } catch {
      return { text: null, problem: this.said("not_text", { at: firstBadByte(bytes) }) };
    }
  }

  said(name, vals) {
    // A file box's words NAME (rules.file_says), filled in.
    return fillIn(this.#rules.file_says[name], vals);
  }

  #say(name, vals) {
    // A note NAME on a link's value (rules.notes.say), filled in.
    return fillIn(this.#told.say[name], vals);
  }

  #show(raw) {
    // state._show: raw cut to show_chars, in JSON's quotes for repr's
    const { show_chars: most, cut } = this.#told;
    return JSON.stringify(chars(raw).length <= most ? raw : chars(raw).slice(0, most).join("") + cut);
  }

  #names(texts) {
    return texts.map((t) => this.#show(t)).join(this.#told.join);
  }

  #strip(s) {
    // str.strip of state's space characters (rules.space), not JavaScript's trim
    let a = 0, b = s.length;
    while (a < b && this.#rules.space.includes(s[a])) a += 1;
    while (b > a && this.#rules.space.includes(s[b - 1])) b -= 1;
    return s.slice(a, b);
  }

  #number(c, raw) {
    const k = this.kind(c);
    const said = { key: c.key, raw: this.#show(raw), default: fmt(c.default) };
    if (!new RegExp(`^(?:${k.syntax})$`).test(raw)) {
      return { value: null, note: this.#say("not_syntax", { ...said, what: k.what }) };
    }
    const x = Number(raw) + (k.whole ? 0 : -0); // a whole number has no -0; a number keeps its sign
    if (!Number.isFinite(x)) return { value: null, note: this.#say("not_finite", said) };
    if (x < c.lo || x > c.hi) {
      const y = Math.min(Math.max(x, c.lo), c.hi);
      return { value: y, note: this.#say("clamped", { ...said, lo: fmt(c.lo), hi: fmt(c.hi), value: fmt(y) }) };
    }
    return { value: x, note: null };
  }

  #onoff(c, raw) {
    const low = raw.toLowerCase(), { true: yes, false: no } = this.#rules;
    if (yes.includes(low) || no.includes(low)) return { value: yes.includes(low), note: null };
    return { value: null, note: this.#say("not_onoff", { key: c.key, raw: this.#show(raw), default: fmt(c.default) }) };
  }

  #words(c, raw) {
    if (c.choices.includes(raw.toLowerCase())) return { value: raw.toLowerCase(), note: null };
    const allowed = this.#names(c.choices.filter(Boolean));
    const said = { key: c.key, raw: this.#show(raw), allowed, default: fmt(c.default) || this.#told.no_default };
    return { value: null, note: this.#say("not_word", said) };
  }

  #list(c, raw) {
    const tokens = raw.split(this.hideSep).map((t) => this.#strip(t)).filter(Boolean);
    const bad = tokens.filter((t) => !this.#hideTokens.has(t));
    const value = [...new Set(tokens)].filter((t) => this.#hideTokens.has(t)).join(this.hideSep);
    if (!bad.length) return { value, note: null };
    return { value, note: this.#say("unknown_tokens", { key: c.key, tokens: this.#names(bad.slice(0, this.#told.names)) }) };
  }
}

function fillIn(template, vals) {
  // str.format's named fields, the way Python fills in the same template
  return template.replace(/\{(\w+)\}/g, (_, k) => vals[k]);
}

function firstBadByte(bytes) {
  // Where Python's UTF-8 decoder says the text breaks (UnicodeDecodeError.start): the start of the first sequence that
  // is not UTF-8. A streaming decoder takes every prefix before it (holding back an unfinished sequence), so the
  // longest prefix taken is found by halving; an unfinished sequence at its end starts the break.
  const takes = (n) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, n), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let lo = 0, hi = bytes.length; // takes(lo); the whole is refused (a sequence cut off at the end included)
  if (takes(hi)) return unfinished(bytes, hi);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (takes(mid)) lo = mid;
    else hi = mid;
  }
  return unfinished(bytes, lo);
}

function unfinished(bytes, n) {
  // The start of a sequence left unfinished at n (its lead byte and fewer than its length after it), else n.
  for (let i = n - 1; i >= Math.max(0, n - 3); i -= 1) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return n - i < length ? i : n;
  }
  return n;
}
