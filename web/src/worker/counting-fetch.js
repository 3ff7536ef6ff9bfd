// A fetch that reports the bytes of every response body as they arrive, so the page can show
// real download progress for the files Pyodide fetches itself.
//
// The WebAssembly runtime is the exception: it goes to WebAssembly.instantiateStreaming
// untouched, because a re-wrapped Response loses its URL and with it V8's cache of compiled
// code, which makes every later visit compile 10 MB of wasm again. Its bytes are counted once
// it has arrived, from the Resource Timing entry.

const PASS_THROUGH = /\.wasm$/;

export function countingFetch(fetch, onBytes) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (PASS_THROUGH.test(new URL(entry.name).pathname)) onBytes(entry.decodedBodySize);
    }
  }).observe({ type: "resource", buffered: true });

  return async (input, init) => {
    const response = await fetch(input, init);
    // Pyodide passes URL objects; others pass strings or Requests.
    const url = new URL(input instanceof Request ? input.url : String(input), self.location.href);
    if (!response.body || PASS_THROUGH.test(url.pathname)) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        onBytes(value.byteLength);
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
