// Compiles .py files to .pyc with Pyodide's own Python, run under Node from node_modules/pyodide, so
// the magic number and the bytecode are exactly what the page runs.
//   node tools/pyc.mjs PYODIDE_DIR HOST_DIR
// HOST_DIR/jobs.json lists [source relative to HOST_DIR, the path Python will report for it]; each
// source gets its .pyc beside it. Unchecked-hash pycs: the importer never stats or hashes a source to
// validate them (Pyodide runs with dont_write_bytecode=1, so without them every import compiles from
// source, every visit). Prints one JSON line: {failed: [[source, why]], version, cache_tag}.
import { pathToFileURL } from "node:url";

const [pyodideDir, hostDir] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${pyodideDir}/`, stdout: (s) => process.stderr.write(`${s}\n`) });
py.FS.mkdirTree("/src");
py.FS.mount(py.FS.filesystems.NODEFS, { root: hostDir }, "/src");
console.log(py.runPython(`
import json, py_compile, sys
failed = []
for src, dfile in json.load(open("/src/jobs.json")):
    try:
        py_compile.compile("/src/" + src, cfile="/src/" + src + "c", dfile=dfile, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except Exception as e:
        failed.append([src, f"{type(e).__name__}: {e}"])
json.dumps({"failed": failed, "version": sys.version.split()[0], "cache_tag": sys.implementation.cache_tag})
`));
