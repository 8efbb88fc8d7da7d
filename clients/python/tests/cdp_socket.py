"""A minimal WebSocket client (RFC 6455, standard library only) for one CDP call through ``connect_url``.

The Python client ships no CDP client (Playwright for Python, for one, takes ``connect_url`` as it
is); the tests still prove that the address connects to the session's own browser.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from typing import Any
from urllib.parse import urlsplit


def cdp_call(connect_url: str, method: str, params: dict[str, Any] | None = None, timeout: float = 15.0) -> dict[str, Any]:
    """Opens ``connect_url``, sends one CDP command, returns its ``result`` and closes."""
    url = urlsplit(connect_url)
    if url.scheme != "ws":
        raise ValueError(f"Only ws:// here, not {url.scheme}://")
    with socket.create_connection((url.hostname, url.port or 80), timeout=timeout) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        target = url.path + (f"?{url.query}" if url.query else "")
        sock.sendall(
            (
                f"GET {target} HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        reader = sock.makefile("rb")
        status = reader.readline().decode()
        if " 101 " not in status:
            raise ConnectionError(f"WebSocket handshake refused: {status.strip()}")
        while reader.readline() not in (b"\r\n", b""):
            pass
        _send_text(sock, json.dumps({"id": 1, "method": method, "params": params or {}}))
        while True:
            opcode, payload = _read_frame(reader)
            if opcode == 0x8:
                raise ConnectionError(f"Closed by the server: {payload[:2].hex()} {payload[2:].decode(errors='replace')}")
            if opcode == 0x1:
                message = json.loads(payload)
                if message.get("id") == 1:
                    if "error" in message:
                        raise RuntimeError(f"{method} failed: {message['error']}")
                    result: dict[str, Any] = message["result"]
                    _send_close(sock)
                    return result


def _send_text(sock: socket.socket, text: str) -> None:
    _send_frame(sock, 0x1, text.encode())


def _send_close(sock: socket.socket) -> None:
    _send_frame(sock, 0x8, struct.pack("!H", 1000))


def _send_frame(sock: socket.socket, opcode: int, payload: bytes) -> None:
    # Client frames are always masked (RFC 6455 section 5.3).
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        header += bytes([0x80 | n])
    elif n < 1 << 16:
        header += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", n)
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def _read_frame(reader: Any) -> tuple[int, bytes]:
    """One whole message (continuation frames joined); server frames are unmasked."""
    message = b""
    opcode = 0
    while True:
        first, second = reader.read(2)
        n = second & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", reader.read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", reader.read(8))
        payload = reader.read(n)
        opcode = opcode or first & 0x0F
        message += payload
        if first & 0x80:
            return opcode, message
