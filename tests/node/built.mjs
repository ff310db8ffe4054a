// The built page's config (#wt-build in $WT_DIST/index.html, else dist/index.html): what the node tests read the
// state rules from, exactly as the page does.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const dist = () => process.env.WT_DIST || resolve(root, "dist");

// The page's state rules (weighttying.prerender.rules(), the page config's "state") as tests/node/rules.json holds
// them, so the tests of the state codec and the address bar need no build; tests/test_node.py checks the file is
// what Python emits today.
export const rules = () => JSON.parse(readFileSync(resolve(root, "tests", "node", "rules.json"), "utf8"));

export function builtConfig() {
  const index = resolve(dist(), "index.html");
  const html = readFileSync(index, "utf8");
  const m = html.match(/<script id="wt-build" type="application\/json">(.*?)<\/script>/s);
  if (!m) throw new Error(`${index} has no #wt-build config: build the site first (.venv/bin/python build.py)`);
  return JSON.parse(m[1]);
}
