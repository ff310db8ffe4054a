// site/address.js, the address bar's one writer, over the rules the build emitted: a section's values have one
// holder at a time (the player, then Python from its hand-over), through a reader's move in between and a restart
// after a worker crash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Address } from "../../site/address.js";
import { Codec } from "../../site/state.js";
import { rules as fixture } from "./fixtures.mjs";

const rules = new Codec(fixture());

function page(search = "") {
  // A location and a history whose replaceState moves the location, as a browser's do; writes are counted.
  const loc = { pathname: "/", search, hash: "" };
  const hist = {
    state: null, writes: [],
    replaceState(state, title, url) {
      const u = new URL(url, `http://x${loc.pathname}${loc.search}${loc.hash}`);
      Object.assign(loc, { search: u.search, hash: u.hash });
      this.writes.push(u.search + u.hash);
    },
  };
  return { loc, hist, address: new Address(rules, loc, hist) };
}

test("the player holds a section until its hand-over, Python after it", () => {
  const { loc, address } = page("?tying.V=100");
  assert.equal(address.holder("tying"), "player");
  assert.equal(address.fromPlayer("tying", { "tying.V": 200, "tying.d": 16 }), true);
  assert.equal(loc.search, "?tying.V=200");
  // Python's values of a section it does not hold yet are kept aside, not written
  address.fromPython({ tying: { "tying.V": 200, "tying.d": 16 }, sweep: { "sweep.sigma": 0.25 } });
  assert.equal(loc.search, "?tying.V=200");
  address.handOver(["tying"]);
  assert.equal(address.holder("tying"), "python");
  assert.equal(address.fromPlayer("tying", { "tying.V": 300 }), false, "the player no longer writes a live section");
  address.fromPython({ tying: { "tying.V": 400, "tying.d": 16 } });
  assert.equal(loc.search, "?tying.V=400");
  assert.equal(address.query, "tying.V=400");
});

test("a reader's move between Python's start and the hand-over is what the URL keeps", () => {
  const { loc, address } = page("");
  address.fromPython({ savings: { "savings.preset": "gpt2-small", "savings.V": 50257 } }); // Python's start
  address.fromPlayer("savings", { "savings.preset": "custom", "savings.V": 1000 }); // the reader, before hand-over
  assert.equal(loc.search, "?savings.preset=custom&savings.V=1000");
  // Python follows the player's query (boot.js: state) and posts the section's values, then the hand-over
  address.fromPython({ savings: { "savings.preset": "custom", "savings.V": 1000 } });
  address.handOver(["savings"]);
  assert.equal(loc.search, "?savings.preset=custom&savings.V=1000");
  // a stale post of an older state never overrides a section the player still holds
  address.fromPython({ sweep: { "sweep.sigma": 2 } });
  assert.equal(loc.search, "?savings.preset=custom&savings.V=1000");
});

test("after a worker crash the player holds every section again, and the next Python takes over anew", () => {
  const { loc, address } = page("?sweep.sigma=0.5");
  address.fromPython({ sweep: { "sweep.sigma": 0.5 } });
  address.handOver(["sweep"]);
  address.fromPython({ sweep: { "sweep.sigma": 2 } });
  assert.equal(loc.search, "?sweep.sigma=2");
  address.restart(); // boot.js: the prerender and the player come back (and ignore the dead worker's words)
  assert.equal(address.holder("sweep"), "player");
  assert.equal(address.fromPlayer("sweep", { "sweep.sigma": 3 }), true);
  assert.equal(loc.search, "?sweep.sigma=3");
  address.handOver(["tying"]); // a section the new Python posted nothing for: the values the URL shows stay
  assert.equal(loc.search, "?sweep.sigma=3");
  address.fromPython({ sweep: { "sweep.sigma": 3 } }); // the new Python starts from the URL the player wrote
  address.handOver(["sweep"]);
  address.fromPython({ sweep: { "sweep.sigma": 4 } });
  assert.equal(loc.search, "?sweep.sigma=4");
});

test("free text never enters the URL but is carried to Python until the hand-over; an anchor keeps the query", () => {
  // the rules with one section of a number and a free text, as a test build's probe declares them
  const built = fixture(), words = { key: "probe.words", section: "probe", name: "words", kind: "text", default: "" };
  const n = { key: "probe.n", section: "probe", name: "n", kind: "number", default: 1, lo: 0, hi: 10 };
  const probe = new Codec({ ...built, sections: [...built.sections, "probe"], controls: [...built.controls, n, words] });
  const loc = { pathname: "/", search: "?tying.V=100", hash: "" }, writes = [];
  const hist = { state: null, replaceState: (s, t, url) => writes.push(url) };
  const address = new Address(probe, loc, hist);
  address.fromPlayer("probe", { "probe.n": 2, "probe.words": "a long private text" });
  assert.deepEqual(writes, ["?tying.V=100&probe.n=2"]);
  // what Python takes beside the query (schedule.js), and a count of the moves the query does not show
  assert.deepEqual(address.carried(), { "probe.words": "a long private text" });
  assert.deepEqual(address.carried(["tying"]), {});
  assert.equal(address.moved, 1);
  address.fromPlayer("probe", { "probe.n": 3, "probe.words": "a long private text" });
  assert.equal(address.moved, 1, "a move of a linked value is the query's");
  address.hash("probe");
  assert.deepEqual(writes.at(-1), "?tying.V=100&probe.n=3#probe");
  loc.hash = "#probe";
  address.dropFragment(); // a shared code's fragment, read: the query stays, the anchor goes
  assert.deepEqual(writes.at(-1), "?tying.V=100&probe.n=3");
  address.handOver(["probe"]); // Python holds the text now: nothing is carried any more, and nothing was written
  assert.deepEqual(address.carried(), {});
  assert.ok(writes.every((w) => !w.includes("private")), writes);
});

test("Python's first boot reads the link as opened (to name what it refused), a restart the URL as it is", () => {
  const { address } = page("?theme=<svg>&tying.V=100");
  assert.equal(address.fromPlayer("tying", { "tying.V": 200, "tying.d": 16 }), true); // the player cleans the URL
  assert.equal(address.query, "tying.V=200");
  assert.equal(address.bootQuery(), "theme=<svg>&tying.V=100");
  assert.equal(address.bootQuery(), "tying.V=200");
});
