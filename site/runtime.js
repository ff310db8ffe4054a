// One compile of Python's runtime per page. Each worker compiled the 10.1 MB pyodide.asm.wasm itself, and WebKit
// (every iPhone browser) keeps nothing of one worker's compile for the next: a page's second worker went live 1.7 s
// later for it (bench/README.md, "One compile of the runtime's wasm per page"). Over http the page compiles it once,
// from the bytes the build's sha256 checked (a fetch with its SRI), and hands the module to every worker it starts:
// a "runtime" message, after the boot message that said one would come (`runtime: true`). A compile that failed
// hands null, and each worker compiles its own checked copy as before, which names a file missing or modified.
// Modules go one way only: a worker never hands the page one (a worker that ran the reader's code could hand any).
// The classroom file hands none: its runtime is brotli inside the page, which only its workers unpack.

/** A function that starts a worker of TRANSPORT and, where the transport compiles the runtime (compileRuntime),
 * hands it the page's one module; and whether it does ({start, hands}). */
export function handingRuntime(config, transport) {
  if (typeof transport.compileRuntime !== "function") return { start: () => transport.worker(), hands: false };
  let module = null; // the page's one compile, begun with its first worker: a promise of the module, or null
  const start = () => {
    module = module || transport.compileRuntime(config).catch(() => null);
    const worker = transport.worker();
    module.then((m) => worker.postMessage({ type: "runtime", module: m }));
    return worker;
  };
  return { start, hands: true };
}

/** The runtime's module compiled from this site's copy, checked by its sha256 in the build's config (httpTransport);
 * rejected where the config has no sha256 for it (nothing unchecked is compiled). */
export async function compileRuntime(config) {
  const path = `${config.runtime}pyodide.asm.wasm`, integrity = (config.integrity || {})[path];
  if (!integrity) throw new Error(`no sha256 for ${path} in this build's config`);
  return WebAssembly.compileStreaming(fetch(path, { integrity }));
}
