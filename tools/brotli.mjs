// Brotli-compresses files in parallel on libuv's thread pool. Node's zlib has brotli built in, so the
// build needs no extra Python package.
//   node tools/brotli.mjs JOBS.json QUALITY
// JOBS.json lists [source, destination] pairs. A 16 MB window (LGWIN 24) lets the big files (wasm,
// stdlib, wheels) refer back across their whole length.
import fs from "node:fs";
import zlib from "node:zlib";

const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const quality = Number(process.argv[3]);
const P = zlib.constants;
await Promise.all(jobs.map(([src, dst]) => new Promise((resolve, reject) => {
  const data = fs.readFileSync(src);
  const params = { [P.BROTLI_PARAM_QUALITY]: quality, [P.BROTLI_PARAM_LGWIN]: 24, [P.BROTLI_PARAM_SIZE_HINT]: data.length };
  zlib.brotliCompress(data, { params }, (err, out) => {
    if (err) return reject(err);
    fs.writeFileSync(dst, out);
    resolve();
  });
})));
