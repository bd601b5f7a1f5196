"""The bearer token of ``spade-gym serve``: the ASGI gate in front of the OpenEnv app, and an
OpenEnv client that sends the token (openenv-core 0.3's ``GenericEnvClient`` sends no headers)."""

from __future__ import annotations

import hmac
import inspect
import json
import os
from typing import Any

from openenv.core import GenericEnvClient

__all__ = ["PUBLIC_PATHS", "TOKEN_ENV_VAR", "SpadeEnvClient", "TokenGate"]

#: Environment variable holding the bearer token (``--token`` overrides it).
TOKEN_ENV_VAR = "SPADE_GYM_SERVE_TOKEN"
#: Paths a client may reach without the token (health probes of containers and OpenEnv's providers).
PUBLIC_PATHS = frozenset({"/health"})


class TokenGate:
    """ASGI middleware in front of OpenEnv. With a token, every HTTP request and WebSocket
    handshake but :data:`PUBLIC_PATHS` must carry ``Authorization: Bearer <token>`` (401
    otherwise, before OpenEnv sees it). And a session whose client has already gone ends
    quietly (OpenEnv closes such sockets again, which Starlette reports as an error)."""

    def __init__(self, app, token: str | None = None):
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope, receive, send):
        from starlette.websockets import WebSocketDisconnect

        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if self.expected is not None and scope.get("path") not in PUBLIC_PATHS:
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                return await self._refuse(scope, receive, send)
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            if scope["type"] != "websocket":
                raise

    @staticmethod
    async def _refuse(scope, receive, send):
        body = json.dumps({"detail": "missing or wrong token: send Authorization: Bearer <token>"}).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                   (b"content-length", str(len(body)).encode())]
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await receive()  # websocket.connect
        if "websocket.http.response" in (scope.get("extensions") or {}):
            await send({"type": "websocket.http.response.start", "status": 401, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # a server without the denial-response extension answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008})


#: Newer OpenEnv clients (the ``openenv`` distribution) send extra handshake headers themselves.
_NATIVE_HEADERS = "headers" in inspect.signature(GenericEnvClient.__init__).parameters


class SpadeEnvClient(GenericEnvClient):
    """``GenericEnvClient`` that sends the server's bearer token (``token=`` or ``$SPADE_GYM_SERVE_TOKEN``)
    with its WebSocket handshake. openenv-core 0.3's client sends no headers; newer OpenEnv
    clients take ``headers=``, which this passes on."""

    _ws: Any  # the client's socket, set by the base class (openenv ships no types to say so)

    def __init__(self, base_url: str, token: str | None = None, **kwargs: Any):
        token = token if token is not None else os.environ.get(TOKEN_ENV_VAR) or None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if _NATIVE_HEADERS:
            kwargs["headers"] = {**(kwargs.get("headers") or {}), **headers} or None
        super().__init__(base_url=base_url, **kwargs)
        self._token_headers = headers or None

    if not _NATIVE_HEADERS:
        async def connect(self) -> SpadeEnvClient:
            from urllib.parse import urlsplit

            from websockets.asyncio.client import connect

            if self._ws is None:
                loopback = urlsplit(self._ws_url).hostname in ("localhost", "127.0.0.1", "::1")
                try:
                    self._ws = await connect(self._ws_url, open_timeout=self._connect_timeout,
                                             max_size=self._max_message_size, additional_headers=self._token_headers,
                                             proxy=None if loopback else True)
                except Exception as exc:
                    raise ConnectionError(f"Failed to connect to {self._ws_url}: {exc}") from exc
            return self
