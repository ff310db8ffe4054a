// The JS linter (npm eslint, pinned by package-lock; tests/test_node.py runs it in ./dev test). The page's code
// and the worker's are ES modules (site/, bundled by build.py); embed.js stays a classic script (host pages
// include it as it is), and bench/worker_hook.js is appended to the bundled worker, in its scope.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "dist/", "dist-probe/", ".venv/", ".cache/", "bench/out/"] },
  js.configs.recommended,
  {
    files: ["site/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, Bokeh: "readonly" } },
    // the developers' brief: "a function that is not one idea in under 80 lines is two" (eslint counts the functions
    // inside a function in its lines)
    rules: { "max-lines-per-function": ["error", { max: 80 }] },
  },
  // the worker's loadPyodide comes from pyodide.js, which it runs as importScripts would
  { files: ["site/worker*.js"], languageOptions: { globals: { ...globals.worker, loadPyodide: "readonly" } } },
  { files: ["site/embed.js", "bench/worker_hook.js"], languageOptions: { sourceType: "script", globals: globals.worker } },
  { files: ["tests/node/**/*.mjs", "tests/*.mjs", "tools/*.mjs"], languageOptions: { globals: globals.node } },
];
