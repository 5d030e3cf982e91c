"""The workbench's security boundary: a token on every request, the Host and Origin checked, files kept under a root.

The page is served on the loopback interface by default, and a page served
on a machine is reachable by every program on it and by any web page a
browser there shows.  So every request is refused (403) unless

* it carries the token printed with the URL (the ``token`` query parameter
  once; the page then sends it as the ``X-Anonset-Token`` header, and a
  cookie scoped to the page keeps it for plain navigation), compared in
  constant time;
* its ``Host`` header names the address the server is bound to, or
  ``localhost`` / ``127.0.0.1`` / ``[::1]`` for a loopback server (a page of
  another site that resolves its name to 127.0.0.1 sends its own name: DNS
  rebinding);
* when it changes anything (any method but GET and HEAD), its ``Origin``
  (else its ``Referer``) is this server;
* its body is no larger than the upload limit (413).

Files are read and written only under the root folder given at start:
:func:`under_root` refuses an absolute path, a ``..`` part and a symbolic link
that leads out of it.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from anonset.errors import ConfigError

__all__ = ["COOKIE", "HEADER", "Guard", "under_root"]

#: The header the page sends the token in.
HEADER = "x-anonset-token"
#: The cookie that keeps the token for plain navigation (links, the report page).
COOKIE = "anonset_token"
#: The largest request body accepted (a table uploaded through the page), in bytes.
UPLOAD_LIMIT = 200 * 2**20
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def under_root(root: Path, relative: str) -> Path:
    """``relative`` resolved inside ``root``; a ConfigError for anything that would leave it.

    Refused: an empty or absolute path, any ``..`` part, and a path whose
    real location (symbolic links followed) is not under the root's.
    """
    text = str(relative).strip()
    if not text or text.startswith(("/", "\\")) or Path(text).is_absolute():
        raise ConfigError(f"{relative!r}: give a path inside the workbench's folder, relative to it")
    parts = Path(text.replace("\\", "/")).parts
    if any(part == ".." for part in parts):
        raise ConfigError(f"{relative!r}: '..' is not allowed; give a path inside the workbench's folder")
    base = root.resolve()
    target = (base / Path(*parts)).resolve()
    if target != base and base not in target.parents:
        raise ConfigError(f"{relative!r}: leads out of the workbench's folder (a symbolic link?); give a path"
                          " inside it")
    return target


@dataclass
class Guard:
    """The checks of the module docstring, as ASGI middleware around the app."""

    app: ASGIApp
    host: str
    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    upload_limit: int = UPLOAD_LIMIT

    def allowed_hosts(self) -> set[str]:
        """The ``Host`` header values accepted: the bound address (and the loopback names for a loopback server)."""
        names = {self.host}
        if self.host in _LOOPBACK or self.host.startswith("127."):
            names |= set(_LOOPBACK)
        return {f"{name}:{self.port}" for name in names} | names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        problem = self._problem(scope, headers)
        if problem is not None:
            await _refuse(send, *problem)
            return
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
        if given is not None and scope["method"] == "GET":  # the first visit: keep the token in a cookie
            await self.app(scope, receive, _with_cookie(send, self.token))
            return
        await self.app(scope, _limited(receive, self.upload_limit), send)

    def _problem(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        """Why the request is refused (status, reason), or None."""
        if headers.get("host", "") not in self.allowed_hosts():
            return 403, "this workbench answers only requests addressed to it (Host header refused)"
        if not self._has_token(scope, headers):
            return 403, "a token is needed: open the URL the workbench printed when it started"
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin") or headers.get("referer")
            if origin is None or f"{urlsplit(origin).netloc}" not in self.allowed_hosts():
                return 403, "a change must come from the workbench's own page (Origin refused)"
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.upload_limit:
            return 413, f"the request is larger than the {self.upload_limit // 2**20} MiB the workbench accepts"
        return None

    def _has_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        """Whether the request carries the token (query, header or cookie)."""
        candidates = [headers.get(HEADER)]
        candidates += parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                candidates.append(value)
        return any(c is not None and hmac.compare_digest(c.encode(), self.token.encode()) for c in candidates)


async def _refuse(send: Send, status: int, reason: str) -> None:
    """A plain-text refusal."""
    body = (reason + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _with_cookie(send: Send, token: str) -> Send:
    """``send`` that adds the token cookie (HttpOnly, SameSite=Strict, the whole page) to the response's headers."""
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict".encode()
            message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
        await send(message)
    return sending


def _limited(receive: Receive, limit: int) -> Receive:
    """``receive`` that stops a body streamed past ``limit`` bytes (one sent without a Content-Length)."""
    seen = 0

    async def receiving() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise ConfigError(f"the request is larger than the {limit // 2**20} MiB the workbench accepts")
        return message
    return receiving
