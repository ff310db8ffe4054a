// The JS linter (npm eslint, pinned by package-lock; tests/test_node.py runs it in ./dev test). The page's code
// is ES modules (site/, bundled by build.py); the worker and embed.js stay classic scripts: Pyodide loads with
// importScripts, and host pages include embed.js as it is.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "dist/", "dist-probe/", ".venv/", ".cache/", "bench/out/"] },
  js.configs.recommended,
  {
    files: ["site/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, Bokeh: "readonly" } },
  },
  {
    // classic scripts; the worker's wtPayload and wtFetched are the classic builds of site/unpack.js and
    // site/fetched.js that build.py puts before it, and loadPyodide comes from pyodide.js (importScripts)
    files: ["site/worker.js", "site/embed.js", "bench/worker_hook.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.worker, wtPayload: "readonly", wtFetched: "readonly", loadPyodide: "readonly" } },
  },
  { files: ["bench/worker_hook.js"], languageOptions: { globals: { py: "readonly", post: "readonly", readable: "readonly" } } },
  { files: ["tests/node/**/*.mjs", "tests/*.mjs", "tools/*.mjs"], languageOptions: { globals: globals.node } },
];
