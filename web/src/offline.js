// Registers the site's service worker (service-worker.js, built to dist/sw.js at the site's root),
// which makes every page work offline after one visit and cross-origin isolated on any host.

// The bundle's own address, read while it runs: sw.js sits one folder above assets/.
const SCRIPT = document.currentScript ? document.currentScript.src : null;

/** Registers once `after` settles (a lesson passes Python's start-up, so that the worker's
 *  download of the whole site reuses what the page already fetched instead of competing with it). */
export function registerServiceWorker(after = Promise.resolve()) {
  if (!SCRIPT || !("serviceWorker" in navigator) || !window.isSecureContext) return;
  // `build.py serve --watch` writes no service worker (it would serve stale pages between
  // builds) and marks its pages with its live-reload script: registering would only fetch a 404.
  if (document.getElementById("live-reload")) return;
  const url = new URL("../sw.js", SCRIPT);
  after.catch(() => {}).then(() => navigator.serviceWorker.register(url).catch(() => {
    // A browser that refuses (private mode, storage off) keeps the page working as it is.
  }));
}
