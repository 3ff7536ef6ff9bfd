// Fetches made ahead of need while the page is idle: the next lesson's page and its lesson.zip,
// so that a move to it ("Next") shows it and hands its files to the Python workers without
// waiting for the network or the service worker (docs/architecture.md, "Moving between
// lessons"). Only the latest look-ahead is kept, and each fetch serves one use.

const ahead = new Map();  // absolute URL -> Promise of what `read` made of its response

/** Forgets what was fetched ahead (a new page looks ahead for itself). */
export function clearAhead() {
  ahead.clear();
}

/** Whether `url` was fetched ahead (or is being fetched) and not used yet. */
export function isAhead(url) {
  return ahead.has(url);
}

/** Starts fetching `url` now (once), for `fetched`; resolves with `read(response)`. */
export function fetchAhead(url, read) {
  if (!ahead.has(url)) {
    const early = fetch(url).then(read);
    early.catch(() => ahead.delete(url));  // a failure is not kept: the move fetches again
    ahead.set(url, early);
  }
  return ahead.get(url);
}

/** `read(response)` of `url`: the fetch made ahead (then forgotten), or one made now. */
export function fetched(url, read) {
  const early = ahead.get(url);
  ahead.delete(url);
  const now = () => fetch(url).then(read);
  return early ? early.catch(now) : now();
}

/** A page's response as `navigation.js` needs it. */
export async function readPage(response) {
  return {
    url: response.url,
    html: response.ok && (response.headers.get("content-type") || "").includes("text/html"),
    text: await response.text(),
  };
}

/** A file's bytes; an HTTP error is an Error naming the file. */
export async function readBytes(response) {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}
