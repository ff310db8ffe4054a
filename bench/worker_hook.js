
// bench/worker_hook.js, appended to worker.js by `build.py --bench` only: bench/run.py times Python source
// (bench/numerics.py) in the worker and reads the size of its wasm heap. It runs any code it is sent, so
// the shipped dist/ never has it (tests/test_build.py checks the built worker).
{
  const shipped = self.onmessage;
  self.onmessage = (event) => {
    const msg = event.data;
    if (msg.type !== "bench") return shipped(event);
    // the bundle's own names are not globals: the runtime and readable() through the worker's hook (site/worker.js)
    const { py, readable } = self.__wtWorker;
    (async () => {
      try {
        const result = await py.runPythonAsync(msg.code);
        self.postMessage({ type: "bench", result: String(result), wasm_bytes: py._module.HEAP8.length });
      } catch (err) {
        self.postMessage({ type: "bench", error: readable(err) });
      }
    })();
  };
}
