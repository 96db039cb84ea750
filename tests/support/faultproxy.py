"""A TCP forwarder that can take a service down and bring it back: outages without root.

The services under test (API, worker) connect to `127.0.0.1:proxy.port` instead of the real
Postgres or Redis. `cut()` closes the listening socket (new connections are refused, as for
a stopped server) and resets every open connection (as for a server that died); `restore()`
listens on the same port again. The real server is never touched, so a test uses only the
database it was given.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class FaultProxy:
    """Forward 127.0.0.1:<port> to (host, port) until cut; reopen the same port on restore."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.connections = 0  # accepted since start: proves the clients go through the proxy

    def __enter__(self) -> FaultProxy:
        self._listen()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cut()

    def _listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(256)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by cut()
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self.connections += 1
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                self._drop(sock)

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def cut(self) -> None:
        """The service goes away: refuse new connections, reset the open ones."""
        if self._listener is not None:
            # shutdown first: a bare close leaves the socket listening while the accept
            # thread still holds it (Linux), so connects would go on succeeding
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            sockets = list(self._open)
        for sock in sockets:
            # RST, not FIN: a dead server's peer sees a reset, not an orderly close
            with contextlib.suppress(OSError):
                sock.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
            self._drop(sock)

    def restore(self) -> None:
        """The service is back on the same address."""
        if self._listener is None:
            self._listen()
