// What the node tests read instead of a build: small files under tests/node/ that tests/node_fixtures.py makes with
// the build's own functions, and tests/test_node.py checks are what it would make today.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

const read = (name) => readFileSync(resolve(root, "tests", "node", name));

// The page's state rules (weighttying.prerender.rules(), the page config's "state").
export const rules = () => JSON.parse(read("rules.json"));

// Every section's playback grid {sid: {keys, values}}; the whole tables of two sections, each fragment its sha256
// (16 hex digits); and the fragment of each of their slots the prerender shows, {sid: {slot: sha256}}.
export const playback = () => JSON.parse(read("playback.json"));

// Files a file box reads ({why, hex, times, limit}: bytes.fromhex(hex) * times) and what state.decoded makes of each
// ({chars, problem}).
export const files = () => JSON.parse(read("files.json"));

// The status lines' words (weighttying.controls.SAYS) and each line as Python fills it in: [name, blanks, text].
export const says = () => JSON.parse(read("says.json"));

// A classroom file (tools/single_file.py) over two small page files, as the browser reads it (windows-1252).
export const classroom = () => new TextDecoder("windows-1252").decode(read("classroom.html"));
