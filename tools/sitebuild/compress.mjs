// Brotli-compresses files with Node's zlib (quality 11, the largest window), for precompressed
// .br copies beside the site's files. The files are compressed at once on libuv's thread pool:
// at quality 11 this is the slowest step of a first build, and the machine has more than one core.
//   node compress.mjs JOB.json      JOB: [[src, dst], ...]
import fs from "node:fs/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";

const brotli = promisify(zlib.brotliCompress);
const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT, BROTLI_MAX_QUALITY } = zlib.constants;
const job = JSON.parse(await fs.readFile(process.argv[2], "utf8"));
// Largest first, so the longest compression starts at once and the others fill the other threads.
const sized = await Promise.all(job.map(async ([src, dst]) => ({ src, dst, size: (await fs.stat(src)).size })));
sized.sort((a, b) => b.size - a.size);
await Promise.all(sized.map(async ({ src, dst }) => {
  const data = await fs.readFile(src);
  const params = { [BROTLI_PARAM_QUALITY]: BROTLI_MAX_QUALITY, [BROTLI_PARAM_LGWIN]: 24, [BROTLI_PARAM_SIZE_HINT]: data.length };
  await fs.writeFile(dst, await brotli(data, { params }));
}));
