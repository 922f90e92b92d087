"""A small SMTP server on 127.0.0.1 that keeps every message it is given (RFC 5321's
commands a client sends for one message: EHLO or HELO, MAIL, RCPT, DATA, RSET, NOOP,
QUIT), in a thread of the test's process: the standard library has no SMTP server
since Python 3.12."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Delivered:
    """What the server was given: each message's envelope recipients and data."""

    messages: list[tuple[list[str], bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Session(socketserver.StreamRequestHandler):
    delivered: Delivered

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode("ascii") + b"\r\n")

    def handle(self) -> None:
        self.reply("220 127.0.0.1 ESMTP test server")
        recipients: list[str] = []
        while line := self.rfile.readline():
            command = line.decode("ascii", "replace").strip()
            verb = command[:4].upper()
            if verb in ("EHLO", "HELO"):
                self.reply("250 127.0.0.1")
            elif verb == "MAIL":
                recipients = []
                self.reply("250 OK")
            elif verb == "RCPT":
                recipients.append(command.partition(":")[2].strip().strip("<>"))
                self.reply("250 OK")
            elif verb == "DATA":
                self.reply("354 End data with <CR><LF>.<CR><LF>")
                self.received(recipients, self.data())
                self.reply("250 OK: queued")
            elif verb == "QUIT":
                self.reply("221 Bye")
                return
            else:  # RSET, NOOP
                self.reply("250 OK")

    def data(self) -> bytes:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b""):
            # RFC 5321 section 4.5.2: a leading dot is doubled by the client.
            lines.append(line[1:] if line.startswith(b"..") else line)
        return b"".join(lines)

    def received(self, recipients: list[str], data: bytes) -> None:
        with self.delivered.lock:
            self.delivered.messages.append((recipients, data))


@contextmanager
def smtp_server() -> Iterator[tuple[int, Delivered]]:
    """A server on a free port of 127.0.0.1: ``(port, what it was given)``."""
    delivered = Delivered()
    handler = type("Handler", (Session,), {"delivered": delivered})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], delivered
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
