// The first wall around learner code in the page (docs/threat-model.md): before any learner
// code runs in a worker, everything that reaches past the worker is taken out of its global
// scope, and out of the prototypes the global scope and `navigator` get them from. Pyodide's
// `import js` (and `js.eval`) sees this same global object, so what is gone here is gone for
// learner code: no Cache Storage, IndexedDB, storage, file system or locks of the site's
// origin, no fetch, XHR, importScripts or sockets (the site's files, the model solution
// included, stay out of reach), and no fresh worker to get a clean global from. The page hands
// the worker everything it needs before this runs (boot.js).
//
// What stays is an allowlist: the language's own built-ins, and the few web APIs Pyodide and
// the worker's own message handling use. Anything a browser adds later is removed by default.

// ECMAScript's own globals (and WebAssembly's): not capabilities of the origin.
const LANGUAGE = [
  "globalThis", "Infinity", "NaN", "undefined", "eval", "isFinite", "isNaN", "parseFloat", "parseInt",
  "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape",
  "Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "RegExp",
  "Promise", "Proxy", "Reflect", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry",
  "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
  "URIError", "SuppressedError", "DisposableStack", "AsyncDisposableStack",
  "JSON", "Math", "Intl", "Atomics", "Iterator", "ArrayBuffer", "SharedArrayBuffer", "DataView",
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "WebAssembly",
];
// Web APIs that reach nothing outside the worker: Pyodide's runtime (time, randomness, text,
// its event loop's timers), the worker's messages to the page, and plain data types.
const WORKER = [
  "self", "console", "postMessage", "onmessage", "onmessageerror", "onerror", "close", "name",
  "location", "navigator", "origin", "isSecureContext", "crossOriginIsolated",
  "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask", "structuredClone",
  "performance", "crypto", "atob", "btoa", "TextEncoder", "TextDecoder",
  "Event", "EventTarget", "ErrorEvent", "MessageEvent", "MessageChannel", "MessagePort", "DOMException",
  "AbortController", "AbortSignal", "URL", "URLSearchParams", "Blob", "File",
  "ReadableStream", "WritableStream", "TransformStream", "ByteLengthQueuingStrategy",
  "CountQueuingStrategy", "TextEncoderStream", "TextDecoderStream",
  "CompressionStream", "DecompressionStream",
];
const KEPT = new Set([...LANGUAGE, ...WORKER]);
// Of `navigator`, only what describes the machine.
const NAVIGATOR_KEPT = new Set(["constructor", "userAgent", "platform", "language", "languages",
  "hardwareConcurrency", "onLine", "appName", "appVersion", "appCodeName", "product", "deviceMemory"]);
// What must be gone afterwards, whatever the browser: checked, so a browser that refuses to
// remove one of them fails the worker's start instead of running learner code beside it.
export const REMOVED = ["fetch", "XMLHttpRequest", "importScripts", "caches", "indexedDB", "Worker",
  "SharedWorker", "BroadcastChannel", "WebSocket", "EventSource", "WebTransport", "Request",
  "Response", "CacheStorage", "Cache", "IDBFactory", "FileReaderSync", "StorageManager", "Lock",
  "LockManager", "FileSystemHandle", "ServiceWorkerContainer"];
export const NAVIGATOR_REMOVED = ["storage", "locks", "serviceWorker", "storageBuckets"];

function strip(object, keep) {
  for (const key of Reflect.ownKeys(object)) {
    if (typeof key === "string" && !keep.has(key)) delete object[key];
  }
}

/** The global scope's own properties and its prototypes' (up to, not including, EventTarget's). */
function globalChain() {
  const chain = [];
  for (let o = self; o && o !== EventTarget.prototype && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    chain.push(o);
  }
  return chain;
}

/** Removes the worker's reach beyond itself; throws if anything listed in REMOVED survives. */
export function confine() {
  const navigatorChain = [];
  for (let o = self.navigator; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) navigatorChain.push(o);
  for (const object of globalChain()) strip(object, new Set([...KEPT, "constructor"]));
  for (const object of navigatorChain) strip(object, NAVIGATOR_KEPT);
  const left = [...REMOVED.filter((name) => name in self),
                ...NAVIGATOR_REMOVED.filter((name) => name in self.navigator).map((n) => `navigator.${n}`)];
  if (left.length) throw new Error(`this browser keeps ${left.join(", ")} in the learner's worker`);
}
