// Registers the site's service worker (service-worker.js, built to dist/sw.js at the site's root),
// which makes every page work offline after one visit and cross-origin isolated on any host.

// The bundle's own address, read while it runs: sw.js sits one folder above assets/.
const SCRIPT = document.currentScript ? document.currentScript.src : null;
// Set (per tab) before the one reload `isolate()` makes: a page that comes back still not
// controlled (a hard reload bypasses the worker) does not reload again.
const RELOADED = "tp-course:isolation-reload";

function canRegister() {
  // `build.py serve --watch` writes no service worker (it would serve stale pages between
  // builds) and marks its pages with its live-reload script: registering would only fetch a 404.
  return Boolean(SCRIPT) && "serviceWorker" in navigator && window.isSecureContext
    && !document.getElementById("live-reload");
}

function register() {
  return navigator.serviceWorker.register(new URL("../sw.js", SCRIPT));
}

/** Registers once `after` settles (a lesson passes Python's start-up, so that the worker's
 *  download of the whole site reuses what the page already fetched instead of competing with it). */
export function registerServiceWorker(after = Promise.resolve()) {
  if (!canRegister()) return;
  after.catch(() => {}).then(() => register().catch(() => {
    // A browser that refuses (private mode, storage off) keeps the page working as it is.
  }));
}

/**
 * A lesson page that is not cross-origin isolated and not yet under the service worker (a first
 * visit to a host without COOP/COEP): registers the worker at once and, once it runs, reloads
 * the page through it, which then is isolated (docs/threat-model.md: learner code never shares
 * the grader's interpreter there). Resolves true when the page is reloading; false where the
 * browser cannot do it (no service worker: a private window, storage off), and the page goes on
 * without isolation.
 */
export async function isolate() {
  if (window.crossOriginIsolated || !canRegister() || navigator.serviceWorker.controller) return false;
  try {
    if (sessionStorage.getItem(RELOADED) === location.pathname) return false;
    const registration = await register();
    const worker = registration.installing || registration.waiting || registration.active;
    await new Promise((resolve) => {
      const settled = () => ["activated", "redundant"].includes(worker.state) && resolve();
      worker.addEventListener("statechange", settled);
      settled();
    });
    if (worker.state !== "activated") return false;  // its install failed: nothing to reload into
    sessionStorage.setItem(RELOADED, location.pathname);
  } catch {
    return false;
  }
  location.reload();
  return true;
}
