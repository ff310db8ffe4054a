// One compile of Python's runtime per page. Each worker compiled the 10.1 MB pyodide.asm.wasm itself, and WebKit
// (every iPhone browser) keeps nothing of one worker's compile for the next: a page's second worker went live 1.7 s
// later for it (bench/README.md, "One compile of the runtime's wasm per page"). Over http the page compiles it once
// (again after a stopped lab, whose Retry asks the site anew), from the bytes the build's sha256 checked (a fetch
// with its SRI), and hands the module to every worker it starts, which then never downloads the wasm itself:
// a "runtime" message, after the boot message that said one would come (`runtime: true`). A compile that failed
// hands null, and each worker compiles its own checked copy as before, which names a file missing or modified.
// Over http, modules go one way only: a worker never hands the page one (a worker that ran the reader's code could
// hand any). The classroom file's runtime is brotli inside the page, which only its workers unpack: there the first
// worker compiles its own and posts the module to the page while it boots, before anything but the build's checked
// code can have run in it, and the page hands that module to the workers after it (offeredRuntime). A page that
// compiled those bytes itself made the first answer wait for it, or ran beside it (bench/README.md).
import { labelledWasm } from "./fetched.js";

/** A function that starts a worker of TRANSPORT and, where the transport compiles the runtime (compileRuntime),
 * hands it the page's module; whether it does; and renew(), after which the next worker's start compiles anew (a
 * stopped lab's Retry asks this site again, as each worker did before). ({start, hands, renew}) */
export function handingRuntime(config, transport) {
  const none = { start: () => transport.worker(), hands: false, renew: () => {} };
  if (typeof transport.compileRuntime !== "function") return none;
  let module = null; // this round's compile, begun with a worker's start: a promise of the module, or of null
  const start = () => {
    // null from the transport: nothing to hand yet (the classroom file before its first worker compiled), so this
    // worker is told nothing and compiles its own; the next start asks again
    module = module || transport.compileRuntime(config)?.catch(() => null) || null;
    const worker = transport.worker();
    if (!module) return worker;
    worker.postMessage({ type: "runtime", coming: true }); // before its boot: it waits for the module
    module.then((m) => {
      try {
        worker.postMessage({ type: "runtime", module: m });
      } catch { // an engine that cannot post a module to this worker: it compiles its own, never waits forever
        worker.postMessage({ type: "runtime", module: null });
      }
    });
    return worker;
  };
  return { start, hands: true, renew: () => { module = null; } };
}

/** The runtime's module compiled from this site's copy, checked by its sha256 in the build's config (httpTransport);
 * rejected where the config has no sha256 for it (nothing unchecked is compiled). One download: a host that does
 * not label it application/wasm (compileStreaming refuses such a body) has its checked bytes compiled instead. */
export async function compileRuntime(config) {
  const path = `${config.runtime}pyodide.asm.wasm`, integrity = (config.integrity || {})[path];
  if (!integrity) throw new Error(`no sha256 for ${path} in this build's config`);
  const res = await fetch(path, { integrity });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return labelledWasm(res) ? WebAssembly.compileStreaming(res) : WebAssembly.compile(await res.arrayBuffer());
}

/** What a worker says while it boots (site/worker_python.js): the first anything else ends its boot, and with it
 * any say it has in the classroom file's module; none of them is the pool's (pool.js). */
export const BOOT_WORDS = new Set(["progress", "timing", "pong", "lifeline", "runtime-offer"]);

/** The classroom file's runtime for its transport's compileRuntime: heard(worker) listens to a worker it starts,
 * whose "runtime-offer {module}" (the module it compiled itself) is taken only while that worker boots, before any
 * of the reader's code can run in it, and only the first; compile() is null until one was, then the promise of it. */
export function offeredRuntime() {
  let module = null;
  return {
    heard(worker) {
      const listen = ({ data }) => {
        if (!BOOT_WORDS.has(data?.type)) return worker.removeEventListener("message", listen); // its boot is over
        if (data.type === "runtime-offer" && !module && data.module instanceof WebAssembly.Module) {
          module = Promise.resolve(data.module);
        }
      };
      worker.addEventListener("message", listen);
    },
    compile: () => module,
  };
}
