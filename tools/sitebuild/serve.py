"""A static server for dist/, for development and tests. With isolation (the default) it sends
COOP/COEP so the page is cross-origin isolated and can interrupt Python through a
SharedArrayBuffer; without it, it behaves like a plain static host."""
from __future__ import annotations

import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class _Handler(SimpleHTTPRequestHandler):
    isolated = True
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
                      ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip",
                      ".woff2": "font/woff2", ".ipynb": "application/x-ipynb+json", ".map": "application/json"}

    def end_headers(self):
        if self.isolated:
            for name, value in ISOLATION_HEADERS.items():
                self.send_header(name, value)
        # Revalidate every time: a rebuilt site is never served stale, and unchanged files come
        # back as 304s from the browser cache.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_request(self, code="-", size="-"):  # only failures, so the terminal stays readable
        if str(getattr(code, "value", code)).startswith(("4", "5")):
            super().log_request(code, size)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser that closes a connection early (a reload, a terminated worker) is normal.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0,
                isolated: bool = True) -> ThreadingHTTPServer:
    handler = type("Handler", (_Handler,), {"isolated": isolated})
    return _Server((host, port), functools.partial(handler, directory=str(directory)))


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}/"


def serve_in_thread(directory: Path, isolated: bool = True) -> tuple[ThreadingHTTPServer, str]:
    """Starts a server on a free port in a daemon thread; the caller calls server.shutdown()."""
    server = make_server(directory, isolated=isolated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server)
