// Brotli-compresses files with Node's zlib (quality 11, the largest window), for precompressed
// .br copies beside the site's files.
//   node compress.mjs JOB.json      JOB: [[src, dst], ...]
import fs from "node:fs";
import zlib from "node:zlib";

const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT, BROTLI_MAX_QUALITY } = zlib.constants;
for (const [src, dst] of JSON.parse(fs.readFileSync(process.argv[2], "utf8"))) {
  const data = fs.readFileSync(src);
  const params = { [BROTLI_PARAM_QUALITY]: BROTLI_MAX_QUALITY, [BROTLI_PARAM_LGWIN]: 24, [BROTLI_PARAM_SIZE_HINT]: data.length };
  fs.writeFileSync(dst, zlib.brotliCompressSync(data, { params }));
}
