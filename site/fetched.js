// One file of this site whose body must have the sha256 the build recorded: the browser itself refuses any
// other body (Subresource Integrity). Shared by the page's player and the worker (both import it), so both
// name a failure the same way.

export async function fetchChecked(url, integrity, name, get = fetch) {
  // The Response of URL, or an Error that says whether NAME is missing or was modified. GET: the network's fetch
  // (a worker that serves checked files from memory under the name fetch passes the one it wraps).
  let res;
  try {
    res = await get(url, { integrity });
  } catch (err) { // a sha256 mismatch and a network failure look alike: ask again without the check
    const plain = await get(url, { cache: "no-store" }).catch(() => null);
    throw new Error(plain && plain.ok ? `${name} was modified: its sha256 is not the one this build recorded`
      : `could not load ${name} from this site`, { cause: err });
  }
  if (!res.ok) throw new Error(`could not load ${name} from this site (HTTP ${res.status})`);
  return res;
}

/** Whether RES is labelled application/wasm: the only body the browser's streaming compile accepts. */
export const labelledWasm = (res) =>
  (res.headers.get("Content-Type") || "").split(";")[0].trim() === "application/wasm";
