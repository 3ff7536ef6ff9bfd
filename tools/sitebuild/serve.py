"""A static server for dist/, for development and tests. With isolation (the default) it sends
COOP/COEP so the page is cross-origin isolated and can interrupt Python through a
SharedArrayBuffer, and the Python workers' Content-Security-Policy with every script (a worker
takes it from its own script's response; other scripts ignore it); without it, it behaves like a
plain static host. Either way it serves what a
good static host serves: the build's `.br`/`.gz` copies with Content-Encoding to browsers that
accept them, and content-hashed files as immutable (everything else is revalidated)."""
from __future__ import annotations

import functools
import os
import re
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .hosting import WORKER_CSP

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}


# esbuild's names: assets/page-EXZLJJUN.css, assets/fonts/KaTeX_Main-Bold-ABCD1234.woff2.
HASHED = re.compile(r"/assets/(.+/)?[^/]+-[A-Z0-9]{8}\.[a-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # preferred first


class _Handler(SimpleHTTPRequestHandler):
    isolated = True
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
                      ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip",
                      ".woff2": "font/woff2", ".ipynb": "application/x-ipynb+json", ".map": "application/json"}

    def end_headers(self):
        path = self.path.split("?", 1)[0]
        if self.isolated:
            for name, value in ISOLATION_HEADERS.items():
                self.send_header(name, value)
            if path.endswith(".js"):
                self.send_header("Content-Security-Policy", WORKER_CSP)
        # Hashed names never change content; the rest is revalidated every time, so a rebuilt
        # site is never served stale and unchanged files come back as 304s.
        self.send_header("Cache-Control", IMMUTABLE if HASHED.search(path) else "no-cache")
        super().end_headers()

    def send_head(self):
        """The file's precompressed copy when the browser accepts its encoding, else the file;
        304 to a browser that holds it already (its ETag)."""
        path = self.translate_path(self.path)
        index = os.path.join(path, "index.html")
        if os.path.isdir(path) and self.path.split("?", 1)[0].endswith("/") and os.path.isfile(index):
            path = index
        if not os.path.isfile(path):
            return super().send_head()  # a folder's redirect to its slash, a 404
        accepted = {part.split(";")[0].strip() for part in self.headers.get("Accept-Encoding", "").split(",")}
        encoding, served = next(((name, path + ext) for name, ext in ENCODINGS
                                 if name in accepted and os.path.isfile(path + ext)), (None, path))
        # An ETag of the file's mtime to the nanosecond, not Last-Modified: its whole seconds
        # answered 304 for a page written again within the second (`serve --watch`, rebuilt
        # tests), and the browser showed the page before the save.
        stat = os.stat(path)
        etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}{"-" + encoding if encoding else ""}"'
        if etag in {tag.strip() for tag in self.headers.get("If-None-Match", "").split(",")}:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        f = open(served, "rb")
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
        self.send_header("ETag", etag)
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return f

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
