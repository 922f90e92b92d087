"""A TCP relay on 127.0.0.1 that can be cut: the S3 endpoint the tests see.

Stopping the S3 server itself would lose its buckets (moto keeps them in
memory), so an outage is played here instead: ``stop()`` closes the port, so
a client gets "connection refused", as from a server that is down, and
drops the connections open through it; ``start()`` listens on the same port
again, in front of the same objects.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading

#: How often the accepting thread looks whether it should stop.
POLL_SECONDS = 0.05


class Relay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0  # chosen by the first start(), kept by the next ones
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.acceptor: threading.Thread | None = None
        self.connections: set[socket.socket] = set()

    @property
    def running(self) -> bool:
        return self.acceptor is not None

    def start(self) -> None:
        if self.acceptor is not None:
            return
        listener = socket.socket()
        # The port of the connections just dropped may still be in TIME_WAIT.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            listener.settimeout(POLL_SECONDS)
        except BaseException:
            listener.close()
            raise
        self.port = listener.getsockname()[1]
        self.stopping.clear()
        self.acceptor = threading.Thread(
            target=self.accept, args=(listener,), name=f"relay-{self.port}", daemon=True
        )
        self.acceptor.start()

    def stop(self) -> None:
        """Return once the port refuses connections and the open ones are dropped."""
        if self.acceptor is None:
            return
        self.stopping.set()
        # The listening socket is closed by its own thread: closed from here,
        # the kernel would keep it (and its backlog) while accept() waits on it.
        self.acceptor.join()
        self.acceptor = None
        with self.lock:
            open_now = list(self.connections)
        for connection in open_now:
            with contextlib.suppress(OSError):  # closed meanwhile by its own thread
                connection.shutdown(socket.SHUT_RDWR)  # wakes the thread that relays it

    def accept(self, listener: socket.socket) -> None:
        with listener:
            while not self.stopping.is_set():
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    continue
                client.settimeout(None)
                try:
                    upstream = socket.create_connection(("127.0.0.1", self.target_port))
                except OSError:
                    client.close()  # the server behind is gone: so is the connection
                    continue
                with self.lock:
                    self.connections.update((client, upstream))
                threading.Thread(
                    target=self.relay, args=(client, upstream), name="relay", daemon=True
                ).start()

    def relay(self, client: socket.socket, upstream: socket.socket) -> None:
        """Bytes both ways until either side closes; then both are closed."""
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(client, selectors.EVENT_READ, upstream)
                selector.register(upstream, selectors.EVENT_READ, client)
                while True:
                    for key, _ in selector.select():
                        source: socket.socket = key.fileobj  # type: ignore[assignment]
                        data = source.recv(65536)
                        if not data:
                            return
                        key.data.sendall(data)
        except OSError:
            return
        finally:
            with self.lock:
                self.connections.difference_update((client, upstream))
            client.close()
            upstream.close()
