
// bench/worker_hook.js, appended to worker.js by `build.py --bench` only: bench/run.py times Python source
// (bench/numerics.py) in the worker and reads the size of its wasm heap. It runs any code it is sent, so
// the shipped dist/ never has it (tests/test_build.py checks the built worker).
{
  const shipped = self.onmessage;
  self.onmessage = (event) => {
    const msg = event.data;
    if (msg.type !== "bench") return shipped(event);
    (async () => {
      try {
        const result = await py.runPythonAsync(msg.code);
        post({ type: "bench", result: String(result), wasm_bytes: py._module.HEAP8.length });
      } catch (err) {
        post({ type: "bench", error: readable(err) });
      }
    })();
  };
}
