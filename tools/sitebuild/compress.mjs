// Brotli-compresses files with Node's zlib (the largest window), for precompressed .br copies
// beside the site's files (the quality: hosting.py's BROTLI_QUALITY). The files are compressed
// at once on libuv's thread pool, the slowest first.
//   node compress.mjs JOB.json QUALITY      JOB: [[src, dst], ...]
import fs from "node:fs/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";

const brotli = promisify(zlib.brotliCompress);
const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT } = zlib.constants;
const job = JSON.parse(await fs.readFile(process.argv[2], "utf8"));
const quality = Number(process.argv[3]);
// Largest first, so the longest compression starts at once and the others fill the other threads.
const sized = await Promise.all(job.map(async ([src, dst]) => ({ src, dst, size: (await fs.stat(src)).size })));
sized.sort((a, b) => b.size - a.size);
await Promise.all(sized.map(async ({ src, dst }) => {
  const data = await fs.readFile(src);
  const params = { [BROTLI_PARAM_QUALITY]: quality, [BROTLI_PARAM_LGWIN]: 24, [BROTLI_PARAM_SIZE_HINT]: data.length };
  await fs.writeFile(dst, await brotli(data, { params }));
}));
