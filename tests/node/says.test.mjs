// site/player.js's status lines against Python's (tests/node/says.json, tests/node_fixtures.py): every line of
// weighttying.controls.SAYS, with the lab loading by itself or waiting for the reader, filled in as str.format does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { said } from "../../site/player.js";
import { says as fixture } from "./fixtures.mjs";

const { says, lines } = fixture();

test("every status line reads as Python fills it in", () => {
  const named = new Set(lines.map(([name]) => name));
  assert.deepEqual([...named].sort(), Object.keys(says).filter((k) => typeof says[k] === "string").sort());
  for (const [name, blanks, text] of lines) assert.equal(said(says, name, blanks), text, name);
});
