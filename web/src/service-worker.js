// The site's service worker (the build writes it to dist/sw.js, after `const PRECACHE = ...`):
// - offline: on install it stores every file of this build (the PRECACHE manifest, each file's
//   sha256 checked), then answers from that store first, so after one visit every lesson loads and
//   grades with no network;
// - updates: a new build's worker installs beside the old one and takes over at once, but keeps
//   the previous build's files, so a page opened before the update can still fetch its own; the
//   new files show on the next visit;
// - isolation on any host: it adds COOP/COEP to navigations and to the Python worker's script
//   (only those: a rewrapped response loses V8's wasm code cache), so the page is cross-origin
//   isolated even where the host cannot send the headers. Responses that carry them already are
//   passed on untouched.
/* global PRECACHE */

const CACHE_PREFIX = "tp-course-";
const CACHE = CACHE_PREFIX + PRECACHE.version;
const SCOPE = new URL(self.registration.scope);
const FILES = new Map(Object.entries(PRECACHE.files).map(([path, sha]) => [new URL(path, SCOPE).href, sha]));
const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

async function sha256(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const MANIFEST = new URL("__precache__.json", SCOPE).href;  // in each build's cache: its files

// This build's bytes for `url`: kept from an earlier build that had the same file, or fetched and
// checked against the manifest.
async function verified(url, expected, earlier) {
  for (const { cache, files } of earlier) {
    if (files[url] === expected) {
      const kept = await cache.match(url);
      if (kept) return kept;
    }
  }
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const got = await sha256(await response.clone().arrayBuffer());
  // The server already holds another build: this worker's set would be mixed, so it is not
  // installed; the next visit brings the worker of the build the server has.
  if (got !== expected) throw new Error(`${url}: sha256 ${got}, expected ${expected}`);
  return response;
}

async function earlierBuilds() {
  const found = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith(CACHE_PREFIX) || name === CACHE) continue;
    const cache = await caches.open(name);
    const manifest = await cache.match(MANIFEST);
    if (manifest) found.push({ name, cache, ...(await manifest.json()) });
  }
  return found;
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const earlier = await earlierBuilds();
    const queue = [...FILES];
    // A few at a time: the browser's connection pool would queue them anyway.
    const fill = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await cache.put(next[0], await verified(next[0], next[1], earlier));
      }
    };
    await Promise.all([fill(), fill(), fill(), fill()]);
    // Written last: a cache without it is incomplete and never reused.
    await cache.put(MANIFEST, Response.json({ installed: Date.now(), files: Object.fromEntries(FILES) }));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    // Keep this build's files and the previous build's (pages opened before the update still
    // use them); older ones go.
    const earlier = (await earlierBuilds()).sort((a, b) => b.installed - a.installed);
    const keep = earlier.length ? earlier[0].name : null;
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE && name !== keep) await caches.delete(name);
    }
  })());
});

function isolated(response) {
  if (response.type === "opaqueredirect" || response.headers.has("Cross-Origin-Embedder-Policy")) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== SCOPE.origin || !url.href.startsWith(SCOPE.href)) return;
  const key = url.origin + url.pathname + (url.pathname.endsWith("/") ? "index.html" : "");
  const needsHeaders = request.mode === "navigate" || request.destination === "worker";
  event.respondWith((async () => {
    // This build's copy first; then an earlier build's (a page opened before the update).
    const response = (await (await caches.open(CACHE)).match(key))
      || (await caches.match(key))
      || (await fetch(request));
    return needsHeaders ? isolated(response) : response;
  })());
});
