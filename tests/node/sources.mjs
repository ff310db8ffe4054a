// The repository's own source as the node tests scan it: a folder's files, and code with its comments taken out (a
// comment that names a write or a hook is not one).
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { root } from "./fixtures.mjs";

/** The absolute paths of every file under DIR (relative to the repository) whose name ends in EXT. */
export const sourceFiles = (dir, ext) => readdirSync(resolve(root, dir), { recursive: true }).filter((f) => f.endsWith(ext))
  .map((f) => resolve(root, dir, f));

/** TEXT without its line comments (whole lines, and a " // " to the line's end). */
export const uncommented = (text) => text.replace(/^\s*\/\/.*$/gm, "").replace(/\s\/\/ .*$/gm, "");
