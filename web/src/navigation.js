// Moving between the course's pages without reloading the page, so the Python workers it
// started stay loaded (docs/architecture.md, "Moving between lessons"). A click on a link to
// another page of this site fetches that page (offline, through the service worker's cache),
// puts its body, title and lesson config in place of this one's, and records the move in the
// browser's history (Back and Forward do the same); the page's own script then mounts the new
// lesson. Every page's real URL still loads on its own, online and offline.
//
// Anything this cannot do in place becomes an ordinary navigation: a page of another build (its
// script differs: a new deployment), a lesson that needs other Python packages, a page that
// cannot be fetched, or a page that refuses to be left in place (its latest save failed, so the
// browser's own leave-page warning must run).

import { clearAhead, fetchAhead, fetched, isAhead, readBytes, readPage } from "./fetch-ahead.js";

// The bundle's address, read while it runs: every page of one build loads this very file.
const SCRIPT = document.currentScript ? document.currentScript.src : null;

/** The address of the bundle the page `doc` (fetched from `url`) loads. */
function pageScript(doc, url) {
  const script = [...doc.querySelectorAll("script[src]")].find((s) => s.getAttribute("src").includes("assets/"));
  return script ? new URL(script.getAttribute("src"), url).href : null;
}

function sameSiteLink(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return null;
  }
  const link = event.target.closest?.("a[href]");
  if (!link || link.target || link.hasAttribute("download")) return null;
  const url = new URL(link.href, location.href);
  const root = new URL("../", SCRIPT);
  if (url.origin !== location.origin || !url.pathname.startsWith(root.pathname)) return null;
  if (!/(\/|\.html)$/.test(url.pathname) || url.pathname === location.pathname) return null;
  return url;
}

/**
 * Starts intercepting links. `leave()` is asked before each move and returns false to refuse it
 * (an ordinary navigation follows), otherwise it unmounts the page; `fits(doc)` says whether a
 * fetched page can be shown in place (its Python needs are this one's); `arrive()` mounts the
 * page now in the document.
 */
export function startNavigation({ leave, fits, arrive }) {
  if (!SCRIPT || !("pushState" in history)) return;
  let latest = 0;
  let shownPath = location.pathname;
  history.replaceState({ course: true }, "");

  async function go(url, push) {
    const token = ++latest;
    const fallback = () => {
      if (token === latest) location.assign(url.href);
    };
    let doc;
    let page;
    try {
      page = await fetched(url.href, readPage);
      if (!page.html) return fallback();
      doc = new DOMParser().parseFromString(page.text, "text/html");
    } catch {
      return fallback();
    }
    if (token !== latest) return undefined;
    if (pageScript(doc, page.url) !== SCRIPT || !fits(doc) || !leave()) return fallback();
    if (push) history.pushState({ course: true }, "", url.href);
    shownPath = location.pathname;
    swap(doc);
    window.scrollTo(0, 0);
    arrive();
    settle();
    return undefined;
  }

  document.addEventListener("click", (event) => {
    const url = sameSiteLink(event);
    if (!url) return;
    event.preventDefault();
    go(url, true);
  });
  window.addEventListener("popstate", () => {
    // A change of the #fragment alone stays on this page.
    if (location.pathname !== shownPath) go(new URL(location.href), false);
  });
}

/**
 * Fetches the next lesson's page and its lesson.zip now (the page is idle and Python ready), so
 * that a move to it waits for neither (fetch-ahead.js). Only the page's own "Next" link.
 */
export function lookAhead() {
  const link = document.querySelector('nav.lesson-nav a[rel="next"]');
  if (!SCRIPT || !link) return;
  const next = new URL(link.href, location.href).href;
  // Python is ready again after every Stop or restart: what this page fetched ahead is kept
  // (fetched again, a move under way could wait for it twice).
  if (isAhead(next)) return;
  clearAhead();
  fetchAhead(next, readPage).then((page) => {
    if (!page.html) return;
    const doc = new DOMParser().parseFromString(page.text, "text/html");
    const config = doc.getElementById("lesson-config");
    const lesson = config && JSON.parse(config.textContent).urls?.lesson;
    if (lesson) fetchAhead(new URL(lesson, page.url).href, readBytes);
  }, () => {});
}

/** The fetched page's title, lesson config, language styles and body, in place of this one's. */
function swap(doc) {
  const head = document.head;
  const replace = (selector) => {
    const mine = head.querySelector(selector);
    const theirs = doc.head.querySelector(selector);
    if (theirs) {
      const adopted = document.adoptNode(theirs);
      if (mine) mine.replaceWith(adopted);
      else head.append(adopted);
    } else {
      mine?.remove();
    }
  };
  replace("title");
  replace("script#lesson-config");
  replace("style");
  document.body.replaceWith(document.adoptNode(doc.body));
}

/**
 * After a move: the keyboard focus goes to the new page's heading (a screen reader reads it)
 * and a status line names the page, as a page load would announce its title.
 */
function settle() {
  // The heading of the language shown (the other language's blocks are not displayed).
  const heading = [...document.querySelectorAll("main h1")].find((h) => h.getClientRects().length > 0);
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  const announcer = Object.assign(document.createElement("p"), { className: "visually-hidden", id: "page-announcer" });
  announcer.setAttribute("role", "status");
  (document.querySelector("main") ?? document.body).append(announcer);
  // Filled once the empty region exists, so that it is announced.
  requestAnimationFrame(() => {
    announcer.textContent = document.title;
  });
}
