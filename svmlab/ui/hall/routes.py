"""The follower's side of the lecture hall, served by the app's own server
(``st.App(routes=..., middleware=...)`` in app.py; issue 45).

- ``/room/CODE``: the follower's page (``static/follower.html``): the
  lecturer's figure first, full width (plotly.js, the app's vendored cartesian
  bundle), the question, the numbers, the preset's paragraph; "Try it
  yourself" opens Explore with the lecturer's settings.
- ``/room/CODE/events``: the page's server-sent events (:meth:`Hub.stream
  <svmlab.ui.hall.broadcast.Hub.stream>`): the view, the status, the question.
  The page is counted while this connection lasts, and leaves when it ends.
- ``/room/CODE/view``: the whole view (a page that missed a version).
- ``/room/CODE/answer`` (POST): an answer and, optionally, a name.
- ``/room``: type a code. ``/room-files/HASH/NAME``: the page's script, style
  and plotly.js, gzipped once, cached by the browser for good.

:class:`VisitorCookie` names every browser by a random cookie
(``svmlab_visitor``), which the caps and the attempt limit count by
(:mod:`svmlab.ui.hall.limits`), and sends an old ``?follow=CODE`` link of
Explore to ``/room/CODE``. Every text a visitor sends is bounded and checked
before it reaches the store; what a page shows of it is set as text, never
as HTML (``follower.js``).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import html
import json
import secrets
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from svmlab.ui.hall import backend, codes, limits, questions
from svmlab.ui.hall.broadcast import frame
from svmlab.ui.hall.limits import Refusal
from svmlab.ui.hall.view import full_json
from svmlab.user_text import plain

__all__ = ["COOKIE", "THEMES", "VisitorCookie", "routes", "visitor_of"]

COOKIE = "svmlab_visitor"
STATIC = Path(__file__).resolve().parent / "static"
PLOTLY = Path(__file__).resolve().parents[1] / "frame" / "static"
#: The themes the follower's page knows (``?theme=``; ``follower.css``).
THEMES = ("light", "dark", "contrast")
#: The largest answer a follower may post (bytes).
MAX_BODY = 2048
_FILES = {
    "follower.js": (STATIC / "follower.js", "text/javascript; charset=utf-8"),
    "follower.css": (STATIC / "follower.css", "text/css; charset=utf-8"),
    "plotly.js": (PLOTLY / "plotly-cartesian.min.js", "text/javascript; charset=utf-8"),
}


def _cookies(scope: dict[str, Any]) -> dict[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header: no cookies
                return {}
            return {k: m.value for k, m in jar.items()}
    return {}


def visitor_of(scope: dict[str, Any]) -> str:
    """The visitor a request comes from (set by :class:`VisitorCookie`)."""
    return scope.get("state", {}).get("svmlab_visitor", "")


class VisitorCookie:
    """ASGI middleware: every HTTP request gets a visitor (the cookie, or a new
    one that the response sets), and ``?follow=CODE`` on a page goes to the
    room's page."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        visitor = _cookies(scope).get(COOKIE, "")
        fresh = not (16 <= len(visitor) <= 64 and visitor.isascii())
        if fresh:
            visitor = secrets.token_urlsafe(18)
        scope.setdefault("state", {})["svmlab_visitor"] = visitor
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if "follow" in query and scope.get("method") == "GET":
            code = codes.normalize(query["follow"][0])
            target = f"/room/{code}" if code else "/room?unknown=1"
            await _with_cookie(RedirectResponse(target, 303), visitor, fresh)(
                scope, receive, send
            )
            return
        if not fresh:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                headers.append((b"set-cookie", _cookie_header(visitor)))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _cookie_header(visitor: str) -> bytes:
    return (
        f"{COOKIE}={visitor}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax"
    ).encode()


def _with_cookie(response: Response, visitor: str, fresh: bool) -> Response:
    if fresh:
        response.raw_headers.append((b"set-cookie", _cookie_header(visitor)))
    return response


# -- files -----------------------------------------------------------------------------


@cache
def _file(name: str) -> tuple[str, bytes, bytes, str]:
    """``(hash, bytes, gzipped bytes, type)`` of a page file, read once."""
    path, kind = _FILES[name]
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest()[:12], data, gzip.compress(data, 6), kind


def file_url(name: str) -> str:
    return f"/room-files/{_file(name)[0]}/{name}"


async def _files(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _FILES:
        return Response(status_code=404)
    digest, data, packed, kind = await asyncio.to_thread(_file, name)
    headers = {"cache-control": "public, max-age=31536000, immutable"}
    if request.path_params["digest"] != digest:
        headers = {"cache-control": "no-store"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers.update({"content-encoding": "gzip", "vary": "Accept-Encoding"})
        return Response(packed, media_type=kind, headers=headers)
    return Response(data, media_type=kind, headers=headers)


# -- pages -----------------------------------------------------------------------------


def _theme(request: Request) -> str:
    theme = request.query_params.get("theme", "")
    return theme if theme in THEMES else "light"


@cache
def _template(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _page(
    request: Request, code: str = "", refusal: str = "", status: int = 200
) -> Response:
    backend.start()
    theme = _theme(request)
    body = _template("follower.html").format(
        theme=theme,
        code=html.escape(code),
        shown=html.escape(codes.shown(code)) if code else "",
        refusal=html.escape(refusal),
        css=file_url("follower.css"),
        js=file_url("follower.js"),
        plotly=file_url("plotly.js"),
        max_chars=codes.MAX_TYPED,
        name_chars=limits.NAME_CHARS,
    )
    return HTMLResponse(body, status_code=status, headers={"cache-control": "no-store"})


async def _entry(request: Request) -> Response:
    """``/room``: a code to type (``?code=`` goes to its page)."""
    typed = request.query_params.get("code")
    if typed is not None:
        code = codes.normalize(typed)
        if code:
            return RedirectResponse(f"/room/{code}?{request.url.query}", 303)
        return _page(request, refusal=limits.sentence("wrong"), status=404)
    if request.query_params.get("unknown"):
        return _page(request, refusal=limits.sentence("wrong"), status=404)
    return _page(request)


async def _nowhere(request: Request) -> Response:
    return _page(request, refusal=limits.sentence("wrong"), status=404)


def _find(request: Request) -> tuple[str, str]:
    """``(code, visitor)`` of a request for an open room; :class:`Refusal`."""
    visitor = visitor_of(request.scope)
    info = backend.store().find(visitor, request.path_params["code"])
    return info.code, visitor


async def _room(request: Request) -> Response:
    try:
        code, _ = _find(request)
    except Refusal as refusal:
        status = 429 if refusal.reason in ("my_wrong", "server_wrong") else 404
        return _page(request, refusal=str(refusal), status=status)
    return _page(request, code)


async def _view(request: Request) -> Response:
    try:
        code, _ = _find(request)
    except Refusal as refusal:
        return JSONResponse({"error": str(refusal)}, status_code=404)
    view = backend.store().view(code)
    if view is None:
        return JSONResponse({"error": limits.sentence("closed")}, status_code=404)
    return Response(
        full_json(*view),
        media_type="application/json",
        headers={"cache-control": "no-store"},
    )


async def _read_body(request: Request) -> bytes | None:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return body


async def _answer(request: Request) -> Response:
    """A follower's answer: ``{"q": question id, "a": answer, "name": ...}``."""
    body = await _read_body(request)
    if body is None:
        return JSONResponse({"error": "That answer is too long."}, status_code=413)
    try:
        code, visitor = _find(request)
        sent = json.loads(body)
        if not isinstance(sent, dict):
            raise questions.BadAnswer("An answer is a small JSON object.")
        info = backend.store().info(code)
        question = info.question if info is not None else None
        if question is None or question.get("id") != sent.get("q"):
            raise Refusal("no_question")
        value = questions.parse_answer(question, sent.get("a"))
        name = plain(sent.get("name") or "", limits.NAME_CHARS).strip()
        backend.store().answer(code, visitor, question["id"], value, name)
    except Refusal as refusal:
        return JSONResponse({"error": str(refusal)}, status_code=409)
    except (questions.BadAnswer, ValueError) as error:
        message = str(error) if isinstance(error, questions.BadAnswer) else ""
        return JSONResponse(
            {"error": message or "That answer could not be read."}, status_code=400
        )
    return JSONResponse({"ok": True, "answer": value})


class Events:
    """``/room/CODE/events``: the page's stream (raw ASGI: it needs to know at
    once when the connection ends, to count the page out)."""

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        backend.start()
        request = Request(scope)
        role = "branched" if request.query_params.get("as") == "branched" else "follow"
        try:
            last = request.headers.get("last-event-id") or request.query_params.get(
                "v", "-1"
            )
            version = int(last) if len(last) < 12 else -1
        except ValueError:
            version = -1
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )

        async def write(data: bytes) -> None:
            await send({"type": "http.response.body", "body": data, "more_body": True})

        conn = secrets.token_hex(8)
        store = backend.store()
        code = ""
        try:
            code, visitor = _find(request)
            store.attach(code, conn, visitor, role)
        except Refusal as refusal:
            message = json.dumps({"reason": refusal.reason, "text": str(refusal)})
            await write(b"retry: 60000\n" + frame("refused", message))
            await send({"type": "http.response.body", "body": b""})
            return
        gone = asyncio.Event()

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        watcher = asyncio.ensure_future(watch())
        try:
            await backend.hub().stream(code, conn, write, gone, version)
        finally:
            watcher.cancel()
            store.detach(code, conn)
        if not gone.is_set():
            await send({"type": "http.response.body", "body": b""})


def routes() -> list[Route]:
    """The hall's routes, for ``st.App(routes=...)``."""
    return [
        Route("/room", _entry),
        Route("/room-files/{digest}/{name}", _files),
        Route("/room/{code}", _room),
        Route("/room/{code}/view", _view),
        Route("/room/{code}/answer", _answer, methods=["POST"]),
        Route("/room/{code}/events", Events()),
        # Anything else under /room/ (a "code" with a slash in it) is no room.
        Route("/room/{rest:path}", _nowhere),
    ]


def link_path(code: str) -> str:
    """The path of room ``code``'s page (quoted)."""
    return f"/room/{quote(code)}"
