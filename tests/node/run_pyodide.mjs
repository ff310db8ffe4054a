// Run Python under Pyodide in Node with the built site's lock and wheels, and print its result.
//
//   node tests/node/run_pyodide.mjs --lock dist/.../pyodide-lock.json [--packages-dir DIR]
//        [--pyodide node_modules/pyodide] [--packages numpy,weighttying] --code FILE.py
//
// The Pyodide runtime comes from npm (node_modules/pyodide). Packages come only from the given
// lock: each lock entry's file_name is resolved against --packages-dir (default: the lock's
// folder, which is how the browser resolves it against indexURL when the lock sits beside
// pyodide.asm.js). Network is forbidden: any fetch of an http(s) URL (Pyodide's CDN fallback for a
// wheel it cannot find locally) fails the run. The code's last expression must evaluate to a
// str (JSON); it is printed as the last stdout line, after the marker "WT_RESULT ".
// Loading chatter goes to stderr. Exit 0 on success, 1 on any error (message on stderr).
import { readFileSync, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");

function parseArgs(argv) {
  const out = { pyodide: resolve(root, "node_modules", "pyodide"), packages: "numpy" };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (!k.startsWith("--")) throw new Error(`unexpected argument ${k}`);
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k} needs a value`);
    out[k.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = v;
  }
  if (!out.lock) throw new Error("--lock is required");
  if (!out.code) throw new Error("--code is required");
  return out;
}

const offline = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input.url ?? String(input);
  if (/^https?:/i.test(url)) {
    offline.push(url);
    throw new Error(`network is forbidden in the parity run: ${url}`);
  }
  return realFetch(input, init);
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const lock = resolve(args.lock);
  if (!existsSync(lock)) throw new Error(`lock not found: ${lock}`);
  const pkgDir = resolve(args.packagesDir ?? dirname(lock));
  const pyodideDir = resolve(args.pyodide);
  const { loadPyodide, version } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
  const t0 = performance.now();
  const py = await loadPyodide({
    indexURL: pyodideDir + "/",
    lockFileURL: lock,
    packageCacheDir: pkgDir + "/",
    stdout: (s) => process.stderr.write(`[py] ${s}\n`),
    stderr: (s) => process.stderr.write(`[py:err] ${s}\n`),
  });
  const t1 = performance.now();
  const pkgs = args.packages.split(",").map((s) => s.trim()).filter(Boolean);
  const errors = [];
  await py.loadPackage(pkgs, {
    messageCallback: (m) => process.stderr.write(`[load] ${m}\n`),
    errorCallback: (m) => { errors.push(m); process.stderr.write(`[load:err] ${m}\n`); },
    checkIntegrity: true,
  });
  if (errors.length) throw new Error(`loadPackage reported: ${errors.join(" | ")}`);
  if (offline.length) throw new Error(`tried to reach the network: ${offline.join(", ")}`);
  const t2 = performance.now();
  const code = readFileSync(resolve(args.code), "utf8");
  const result = await py.runPythonAsync(code);
  if (typeof result !== "string") throw new Error(`the code must end with a JSON str expression, got ${typeof result}`);
  const t3 = performance.now();
  process.stderr.write(
    `[node] pyodide ${version}: boot ${(t1 - t0).toFixed(0)} ms, packages ${(t2 - t1).toFixed(0)} ms, run ${(t3 - t2).toFixed(0)} ms\n`,
  );
  // A pipe takes large writes in pieces: exit only once all of it is flushed.
  await new Promise((res, rej) => process.stdout.write(`WT_RESULT ${result}\n`, (e) => (e ? rej(e) : res())));
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`[node] ERROR: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  },
);
