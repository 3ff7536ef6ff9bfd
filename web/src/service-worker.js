// The site's service worker (the build writes it to dist/sw.js, after `const PRECACHE = ...` and
// `const WORKER_CSP = ...`):
// - offline: on install it stores every file of this build (the PRECACHE manifest, each file's
//   sha256 checked), then answers from that store first, so after one visit every lesson loads and
//   grades with no network;
// - updates: a new build's worker installs beside the old one and takes over at once, but every
//   page, and every worker a page starts, is answered from the build that page opened with until
//   it is closed: many files have fixed names (the pages, py/lessonkit.zip, each lesson.zip and
//   model-solution.py, pyodide/*), and a page of one build restarting Python with another build's
//   engine or checks would break. A page opened after the update gets the new build;
// - isolation on any host: it adds COOP/COEP to navigations and to the Python worker's script
//   (only those: a rewrapped response loses V8's wasm code cache), so the page is cross-origin
//   isolated even where the host cannot send the headers. Responses that carry them already keep
//   them. The worker's script also gets WORKER_CSP (tools/sitebuild/hosting.py), on any host: no
//   JavaScript made from text in the workers that run learner code.
/* global PRECACHE, WORKER_CSP */

const SCOPE = new URL(self.registration.scope);
// Cache names are shared by the whole origin: these carry the site's path, so two copies of the
// course on one origin (GitHub Pages serves every project of a user from one) keep their own.
const PREFIX = `tp-course:${SCOPE.pathname}:`;
const BUILD_PREFIX = PREFIX + "build:";
const BUILD = BUILD_PREFIX + PRECACHE.version;
// Which build each page and worker uses: a client id's entry holds {build, since}, in a cache so
// it outlives this worker's restarts.
const CLIENTS = PREFIX + "clients";
// A client is listed by clients.matchAll only once it runs: an entry younger than this is kept.
const STARTING_MS = 60_000;
// The names before they carried the site's path: reused while installing, then deleted.
const LEGACY_PREFIX = "tp-course-";
const clientUrl = (id) => new URL(`__clients__/${encodeURIComponent(id)}`, SCOPE).href;
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

// This build's bytes for `url`: kept from an earlier build's cache when they hash to `expected`
// (what a cache holds is never trusted for its name alone), or fetched and checked.
async function verified(url, expected, earlier) {
  for (const cache of earlier) {
    const kept = await cache.match(url);
    if (kept && (await sha256(await kept.clone().arrayBuffer())) === expected) return kept;
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
    if (!(name.startsWith(BUILD_PREFIX) || name.startsWith(LEGACY_PREFIX)) || name === BUILD) continue;
    found.push(await caches.open(name));
  }
  return found;
}

/**
 * A build's version from its file list ({absolute URL: sha256}), as the build computes it
 * (tools/sitebuild/hosting.py: the first 16 hex digits of the sha256 of Python's
 * `json.dumps(files, sort_keys=True)` over paths relative to the site).
 */
async function versionOf(files) {
  const entries = Object.keys(files).map((url) => [url.slice(SCOPE.href.length), files[url]]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ascii = (text) => JSON.stringify(text).replace(/[\u0080-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  const text = "{" + entries.map(([path, sha]) => `${ascii(path)}: ${ascii(sha)}`).join(", ") + "}";
  return (await sha256(new TextEncoder().encode(text))).slice(0, 16);
}

// Each build's file list: this one's from this script, an earlier one's from its cache, used only
// if it hashes to the version in the cache's name (a list changed in storage is no list at all).
const expectedFiles = new Map([[BUILD, Object.fromEntries(FILES)]]);

async function filesOf(build) {
  if (!expectedFiles.has(build)) {
    const stored = await caches.match(MANIFEST, { cacheName: build });
    const files = stored ? (await stored.json()).files : null;
    const trusted = files && (await versionOf(files)) === build.slice(BUILD_PREFIX.length);
    expectedFiles.set(build, trusted ? files : {});
  }
  return expectedFiles.get(build);
}

// Hashes under way, by build and file: the grader and the learner worker ask for the same files
// at once, and both answers wait for one hash.
const hashing = new Map();

/** Whether `build`'s cached `key` hashes to `expected` now (every answer is checked afresh). */
function intact(build, key, expected) {
  const id = `${build} ${key}`;
  if (!hashing.has(id)) {
    hashing.set(id, (async () => {
      const cached = await caches.match(key, { cacheName: build });
      return Boolean(cached) && (await sha256(await cached.arrayBuffer())) === expected;
    })().finally(() => hashing.delete(id)));
  }
  return hashing.get(id);
}

/**
 * `key` from `build`'s cache, served only if its bytes hash to the build's sha256 for it (the
 * second wall: whatever wrote to the cache, a changed file is never served). A changed file is
 * fetched again and kept if the network has the build's bytes; otherwise the answer says what
 * is wrong (status 503), and the page shows it instead of grading with the wrong file.
 */
async function fromCache(build, key) {
  const expected = (await filesOf(build))[key];
  // Not one of the build's files (or a list that did not check out): the network answers.
  if (!expected || !(await caches.match(key, { cacheName: build }))) return null;
  if (await intact(build, key, expected)) {
    // A read of its own, returned as the cache gives it: V8's wasm code cache stays attached.
    return caches.match(key, { cacheName: build });
  }
  try {
    const response = await fetch(key, { cache: "no-cache" });
    if (response.ok && (await sha256(await response.clone().arrayBuffer())) === expected) {
      await (await caches.open(build)).put(key, response.clone());
      return response;
    }
  } catch {
    // Offline: said below.
  }
  const path = key.slice(SCOPE.href.length);
  return new Response(`${path} was changed in this browser's storage, and the network did not give back `
                      + "this version of the course's copy. Connect to the internet and reload the page.",
                      { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(BUILD);
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

// The build each client uses, remembered here first (most requests), then in CLIENTS.
const known = new Map();

async function buildOf(clientId) {
  if (!clientId) return null;
  if (!known.has(clientId)) {
    const saved = await caches.match(clientUrl(clientId), { cacheName: CLIENTS });
    known.set(clientId, saved ? (await saved.json()).build : null);
  }
  return known.get(clientId);
}

async function remember(clientId, build) {
  known.set(clientId, build);
  await (await caches.open(CLIENTS)).put(clientUrl(clientId), Response.json({ build, since: Date.now() }));
}

/** Drops the builds no open page or worker uses (this one stays), and the closed clients. */
async function prune() {
  const live = new Set((await clients.matchAll({ includeUncontrolled: true, type: "all" })).map((c) => c.id));
  const clientsCache = await caches.open(CLIENTS);
  const used = new Set([BUILD]);
  for (const request of await clientsCache.keys()) {
    const id = decodeURIComponent(request.url.slice(clientUrl("").length));
    const { build, since } = await (await clientsCache.match(request)).json();
    if (live.has(id) || Date.now() - since < STARTING_MS) {
      used.add(build);
    } else {
      known.delete(id);
      await clientsCache.delete(request);
    }
  }
  for (const name of await caches.keys()) {
    if ((name.startsWith(BUILD_PREFIX) && !used.has(name)) || name.startsWith(LEGACY_PREFIX)) await caches.delete(name);
  }
}

self.addEventListener("activate", (event) => event.waitUntil(prune()));

function withHeaders(response, worker) {
  const isolated = response.headers.has("Cross-Origin-Embedder-Policy");
  if (response.type === "opaqueredirect" || (isolated && !worker)) return response;
  const headers = new Headers(response.headers);
  if (!isolated) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  if (worker) headers.set("Content-Security-Policy", WORKER_CSP);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== SCOPE.origin || !url.href.startsWith(SCOPE.href)) return;
  const key = url.origin + url.pathname + (url.pathname.endsWith("/") ? "index.html" : "");
  const navigate = request.mode === "navigate";
  const worker = request.destination === "worker";
  const needsHeaders = navigate || worker;
  event.respondWith((async () => {
    // A page opens with this build, the newest; everything else comes from its client's build
    // (a page opened before the update keeps the one it opened with).
    const build = navigate ? BUILD : (await buildOf(event.clientId)) || BUILD;
    // The page about to open, or the worker a page starts, uses the same build.
    if (needsHeaders && event.resultingClientId) event.waitUntil(remember(event.resultingClientId, build));
    // The clients that closed since are forgotten, and the builds only they used go.
    if (navigate) event.waitUntil(prune());
    const response = (await fromCache(build, key)) || (await fetch(request));
    return needsHeaders ? withHeaders(response, worker) : response;
  })());
});
