"""The rooms in a Redis server, shared by several app processes (issue 45).

With ``SVMLAB_REDIS_URL`` set (:mod:`svmlab.ui.hall.backend`), every process
keeps its rooms here, so followers on any process behind a sticky proxy follow
a lecturer on another:

- each room is a hash (owner token, page session, version, paused, gone,
  question) with its visible parts, the parts kept while paused, its pages
  (two sorted sets, following and branched off, scored by when each page's
  process last vouched for it), its answers, their changes and names: keys
  ``svmlab:hall:room:CODE...``, all expiring with the room
  (:data:`~svmlab.ui.hall.limits.ROOM_SECONDS` after the owner's last action,
  or :data:`~svmlab.ui.hall.limits.GONE_SECONDS` after the owner's process
  last said its page was there);
- ``svmlab:hall:rooms`` and ``svmlab:hall:visitor:V:rooms`` count the open
  rooms (scored by expiry), ``svmlab:hall:visitor:V:pages`` a visitor's pages,
  ``svmlab:hall:wrong:...`` the wrong codes (a window per visitor, a minute for
  the server), ``svmlab:hall:closed:CODE`` a code closed within the hour;
- ``svmlab:hall:alive:CODE`` lives three seconds, renewed twice a second by the
  owner's process while the lecturer's page is connected: a room whose owner's
  process stopped reads as "gone" within three seconds on every process;
- one pub/sub channel, ``svmlab:hall:events``, carries what followers see
  (``CODE|kind|payload``): each process subscribes once (a thread) and hands
  each message to its hub, which writes it to its own pages. An update costs
  Redis one message per process, not per follower.

Opening a room and attaching a page are Lua scripts, so the caps hold exactly
when many processes ask at once.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from typing import Any

from svmlab.ui.hall import codes, limits
from svmlab.ui.hall.limits import Refusal
from svmlab.ui.hall.store import (
    ROLES,
    Answer,
    Counts,
    RoomInfo,
    RoomStore,
    question_json,
    status_json,
)
from svmlab.ui.hall.view import delta_json

__all__ = ["PREFIX", "RedisStore"]

LOG = logging.getLogger(__name__)
PREFIX = "svmlab:hall:"
CHANNEL = PREFIX + "events"
#: How long the owner's "alive" key lives without renewal (seconds).
ALIVE_SECONDS = 3
#: How long a page counts without its process vouching again (seconds).
PAGE_SECONDS = 20
#: How long a closed code is remembered (seconds).
CLOSED_SECONDS = 3600

_OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 'rooms' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'my_rooms' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'taken' end
redis.call('HSET', KEYS[3], 'owner', ARGV[6], 'visitor', ARGV[7],
  'session', ARGV[8], 'acted', ARGV[1], 'version', 0, 'paused', 0,
  'gone', '', 'question', '')
redis.call('EXPIREAT', KEYS[3], math.floor(tonumber(ARGV[5])) + 1)
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
redis.call('EXPIREAT', KEYS[2], math.floor(tonumber(ARGV[5])) + 1)
return 'ok'
"""

_ATTACH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'closed' end
for i = 2, 4 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1]) end
local known = redis.call('ZSCORE', KEYS[2], ARGV[3]) or
  redis.call('ZSCORE', KEYS[3], ARGV[3])
if not known then
  if redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3]) >=
    tonumber(ARGV[4]) then return 'full' end
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[5]) then return 'my_pages' end
end
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
redis.call('ZADD', KEYS[5], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
redis.call('EXPIRE', KEYS[4], ARGV[6])
return 'ok'
"""


def _key(*parts: str) -> str:
    return PREFIX + ":".join(parts)


class RedisStore(RoomStore):
    """The rooms in the Redis server at ``url`` (``redis://host:port/db``)."""

    def __init__(self, url: str, clock: Any = time.time) -> None:
        super().__init__()
        import redis

        self.url = url
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=5, health_check_interval=30
        )
        self._clock = clock
        self._open_script = self._redis.register_script(_OPEN)
        self._attach_script = self._redis.register_script(_ATTACH)
        self._lock = threading.Lock()
        #: Rooms opened here: code -> (owner, session, present).
        self._owned: dict[str, tuple[str, str, bool]] = {}
        #: Pages attached here: conn -> (code, visitor, role).
        self._local: dict[str, tuple[str, str, str]] = {}
        self._subscriber: threading.Thread | None = None

    # -- keys and lives ------------------------------------------------------------

    def _room(self, code: str) -> str:
        return _key("room", code)

    def _keys(self, code: str) -> list[str]:
        """Every key of a room (they expire together)."""
        room = self._room(code)
        return [room] + [
            f"{room}:{k}"
            for k in (
                "parts",
                "pending",
                "follow",
                "branched",
                "answers",
                "changes",
                "names",
            )
        ]

    def _expiry(self, acted: float) -> float:
        """When a room acted on at ``acted`` ends unless its owner's process
        vouches again: at most :data:`~limits.ROOM_SECONDS` after the action."""
        now = self._clock()
        return min(acted + limits.ROOM_SECONDS, now + limits.GONE_SECONDS)

    def _extend(self, pipe: Any, code: str, visitor: str, acted: float) -> None:
        end = self._expiry(acted)
        at = int(end) + 1
        for key in self._keys(code):
            pipe.expireat(key, at)
        pipe.zadd(_key("rooms"), {code: end})
        pipe.zadd(_key("visitor", visitor, "rooms"), {code: end})
        pipe.expireat(_key("visitor", visitor, "rooms"), at)

    def _tell_all(self, code: str, kind: str, payload: str, pipe: Any = None) -> None:
        message = f"{code}|{kind}|{payload}"
        if pipe is None:
            self._redis.publish(CHANNEL, message)
        else:
            pipe.publish(CHANNEL, message)

    def _owned_room(self, code: str, owner: str) -> dict[str, str] | None:
        room = self._redis.hgetall(self._room(code))
        if not room or not secrets.compare_digest(room.get("owner", ""), str(owner)):
            return None
        return room

    # -- listening -------------------------------------------------------------------

    def listen(self, listener: Any) -> None:
        super().listen(listener)
        with self._lock:
            if self._subscriber is None:
                self._subscriber = threading.Thread(
                    target=self._subscribe, name="svmlab-hall-redis", daemon=True
                )
                self._subscriber.start()

    def _subscribe(self) -> None:
        """Forever: this process's one subscription; each message to the
        listeners (a lost connection is opened again)."""
        while True:
            try:
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    code, kind, payload = str(message["data"]).split("|", 2)
                    self._tell(code, kind, payload)
            except Exception as error:  # Redis restarted: subscribe again
                LOG.warning("svmlab's room channel dropped: %s", error)
                time.sleep(1.0)

    # -- the owner ---------------------------------------------------------------------

    def open(self, visitor: str, session: str) -> tuple[str, str]:
        owner = secrets.token_urlsafe(24)
        now = self._clock()
        for _ in range(20):
            code = codes.new_code()
            said = self._open_script(
                keys=[
                    _key("rooms"),
                    _key("visitor", visitor, "rooms"),
                    self._room(code),
                ],
                args=[
                    now,
                    limits.MAX_ROOMS,
                    limits.ROOMS_PER_VISITOR,
                    code,
                    self._expiry(now),
                    owner,
                    visitor,
                    session,
                ],
            )
            if said == "ok":
                with self._lock:
                    self._owned[code] = (owner, session, True)
                self._redis.set(_key("alive", code), "1", ex=ALIVE_SECONDS)
                return code, owner
            if said != "taken":
                raise Refusal(said)
        raise Refusal("rooms")

    def owner_of(self, code: str, owner: str) -> bool:
        return self._owned_room(code, owner) is not None

    def publish(self, code: str, owner: str, parts: dict[str, str]) -> int | None:
        room = self._owned_room(code, owner)
        if room is None:
            return None
        now = self._clock()
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(self._room(code), "acted", now)
        self._extend(pipe, code, room["visitor"], now)
        version = int(room["version"])
        if room["paused"] == "1":
            pending = self._room(code) + ":pending"
            pipe.delete(pending)
            if parts:
                pipe.hset(pending, mapping=parts)
            pipe.execute()
            return version
        message = self._advance(pipe, code, version, parts)
        pipe.execute()
        return version + (message is not None)

    def _advance(
        self, pipe: Any, code: str, version: int, parts: dict[str, str]
    ) -> str | None:
        """Queue the new visible parts on ``pipe`` and their message; the
        message (None when nothing changed)."""
        key = self._room(code) + ":parts"
        old = self._redis.hgetall(key)
        changed = {k: v for k, v in parts.items() if old.get(k) != v}
        dropped = [k for k in old if k not in parts]
        if not changed and not dropped:
            return None
        if dropped:
            pipe.hdel(key, *dropped)
        if changed:
            pipe.hset(key, mapping=changed)
        pipe.hset(self._room(code), "version", version + 1)
        message = delta_json(version + 1, version, changed, dropped)
        self._tell_all(code, "view", message, pipe)
        return message

    def set_paused(self, code: str, owner: str, paused: bool) -> bool:
        room = self._owned_room(code, owner)
        if room is None:
            return False
        now = self._clock()
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(self._room(code), mapping={"paused": int(bool(paused)), "acted": now})
        self._extend(pipe, code, room["visitor"], now)
        if not paused:
            pending_key = self._room(code) + ":pending"
            pending = self._redis.hgetall(pending_key)
            if pending:
                self._advance(pipe, code, int(room["version"]), pending)
                pipe.delete(pending_key)
        state = "gone" if room.get("gone") else ("paused" if paused else "live")
        self._tell_all(code, "status", status_json(state), pipe)
        pipe.execute()
        return True

    def set_present(self, code: str, owner: str, present: bool) -> bool:
        room = self._owned_room(code, owner)
        if room is None:
            return False
        with self._lock:
            if code in self._owned:
                self._owned[code] = (*self._owned[code][:2], bool(present))
        was = "gone" if room.get("gone") else None
        pipe = self._redis.pipeline(transaction=True)
        if present:
            pipe.hset(self._room(code), "gone", "")
            pipe.set(_key("alive", code), "1", ex=ALIVE_SECONDS)
            state = "paused" if room["paused"] == "1" else "live"
        else:
            if not room.get("gone"):
                pipe.hset(self._room(code), "gone", self._clock())
            pipe.delete(_key("alive", code))
            state = "gone"
        if state != (was or ("paused" if room["paused"] == "1" else "live")):
            self._tell_all(code, "status", status_json(state), pipe)
        pipe.execute()
        return True

    def beat(self) -> None:
        """Renew the "alive" key of each room opened here whose lecturer's page
        is connected (the monitor, twice a second)."""
        with self._lock:
            present = [code for code, (_, _, here) in self._owned.items() if here]
        if present:
            pipe = self._redis.pipeline(transaction=False)
            for code in present:
                pipe.set(_key("alive", code), "1", ex=ALIVE_SECONDS)
            pipe.execute()

    def close(self, code: str, owner: str) -> bool:
        room = self._owned_room(code, owner)
        if room is None:
            return False
        pipe = self._redis.pipeline(transaction=True)
        pipe.delete(*self._keys(code), _key("alive", code))
        pipe.zrem(_key("rooms"), code)
        pipe.zrem(_key("visitor", room["visitor"], "rooms"), code)
        pipe.set(_key("closed", code), "1", ex=CLOSED_SECONDS)
        self._tell_all(code, "status", status_json("closed"), pipe)
        pipe.execute()
        with self._lock:
            self._owned.pop(code, None)
        return True

    def ask(self, code: str, owner: str, question: dict[str, Any]) -> str | None:
        room = self._owned_room(code, owner)
        if room is None:
            return None
        qid = secrets.token_hex(6)
        public = question_json({**question, "id": qid, "open": True, "reveal": None})
        now = self._clock()
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(self._room(code), mapping={"question": public, "acted": now})
        pipe.delete(self._room(code) + ":answers", self._room(code) + ":changes")
        self._extend(pipe, code, room["visitor"], now)
        self._tell_all(code, "question", public, pipe)
        pipe.execute()
        return qid

    def reveal(self, code: str, owner: str, reveal: dict[str, Any]) -> bool:
        room = self._owned_room(code, owner)
        if room is None or not room.get("question"):
            return False
        question = json.loads(room["question"])
        public = question_json({**question, "open": False, "reveal": reveal})
        now = self._clock()
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(self._room(code), mapping={"question": public, "acted": now})
        self._extend(pipe, code, room["visitor"], now)
        self._tell_all(code, "question", public, pipe)
        pipe.execute()
        return True

    def end_question(self, code: str, owner: str) -> bool:
        room = self._owned_room(code, owner)
        if room is None:
            return False
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(self._room(code), "question", "")
        pipe.delete(self._room(code) + ":answers", self._room(code) + ":changes")
        self._tell_all(code, "question", question_json(None), pipe)
        pipe.execute()
        return True

    def answers(self, code: str) -> list[Answer]:
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(self._room(code) + ":answers")
        pipe.hgetall(self._room(code) + ":names")
        values, names = pipe.execute()
        return [
            Answer(v, names.get(v, ""), json.loads(value))
            for v, value in values.items()
        ]

    def owned_here(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return [(c, o, s) for c, (o, s, _) in self._owned.items()]

    # -- followers ---------------------------------------------------------------------

    def info(self, code: str) -> RoomInfo | None:
        if not code:
            return None
        pipe = self._redis.pipeline(transaction=False)
        pipe.hmget(self._room(code), ["version", "paused", "gone", "question"])
        pipe.exists(_key("alive", code))
        (version, paused, gone, question), alive = pipe.execute()
        if version is None:
            return None
        if gone or not alive:
            state = "gone"
        else:
            state = "paused" if paused == "1" else "live"
        q = json.loads(question) if question else None
        return RoomInfo(code, int(version), state, q)

    def view(self, code: str) -> tuple[int, dict[str, str]] | None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.hget(self._room(code), "version")
        pipe.hgetall(self._room(code) + ":parts")
        version, parts = pipe.execute()
        return None if version is None else (int(version), parts)

    def find(self, visitor: str, typed: object) -> RoomInfo:
        minute = int(self._clock() // limits.SERVER_WINDOW_SECONDS)
        mine, everyone = _key("wrong", visitor), _key("wrong", "server", str(minute))
        pipe = self._redis.pipeline(transaction=False)
        pipe.get(mine)
        pipe.get(everyone)
        counted_mine, counted_all = pipe.execute()
        if int(counted_mine or 0) >= limits.WRONG_CODES_PER_VISITOR:
            raise Refusal("my_wrong")
        if int(counted_all or 0) >= limits.WRONG_CODES_PER_SERVER:
            raise Refusal("server_wrong")
        code = codes.normalize(typed)
        info = self.info(code) if code else None
        if info is not None:
            return info
        if code and self._redis.exists(_key("closed", code)):
            raise Refusal("closed")
        pipe = self._redis.pipeline(transaction=False)
        pipe.incr(mine)
        pipe.expire(mine, int(limits.WRONG_WINDOW_SECONDS), nx=True)
        pipe.incr(everyone)
        pipe.expire(everyone, int(2 * limits.SERVER_WINDOW_SECONDS))
        pipe.execute()
        raise Refusal("wrong")

    def attach(self, code: str, conn: str, visitor: str, role: str) -> None:
        role = role if role in ROLES else "follow"
        room = self._room(code)
        now = self._clock()
        said = self._attach_script(
            keys=[
                room,
                room + ":follow",
                room + ":branched",
                _key("visitor", visitor, "pages"),
                room + (":follow" if role == "follow" else ":branched"),
            ],
            args=[
                now,
                now + PAGE_SECONDS,
                conn,
                limits.MAX_FOLLOWERS,
                limits.PAGES_PER_VISITOR,
                PAGE_SECONDS * 3,
            ],
        )
        if said != "ok":
            raise Refusal(said)
        with self._lock:
            self._local[conn] = (code, visitor, role)

    def detach(self, code: str, conn: str) -> None:
        with self._lock:
            _, visitor, _ = self._local.pop(conn, (code, "", ""))
        room = self._room(code)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zrem(room + ":follow", conn)
        pipe.zrem(room + ":branched", conn)
        if visitor:
            pipe.zrem(_key("visitor", visitor, "pages"), conn)
        pipe.execute()

    def refresh(self, conns: dict[str, str]) -> None:
        """This process vouches for its pages (every few seconds), and renews
        the lives of the rooms opened here whose lecturer is connected."""
        until = self._clock() + PAGE_SECONDS
        with self._lock:
            local = [(c, *self._local[c]) for c in conns if c in self._local]
            owned = [(c, o) for c, (o, _, here) in self._owned.items() if here]
        pipe = self._redis.pipeline(transaction=False)
        for conn, code, visitor, role in local:
            pipe.zadd(self._room(code) + f":{role}", {conn: until}, xx=True)
            pipe.zadd(_key("visitor", visitor, "pages"), {conn: until}, xx=True)
        pipe.execute()
        for code, owner in owned:
            room = self._owned_room(code, owner)
            if room is None:
                with self._lock:
                    self._owned.pop(code, None)
                continue
            pipe = self._redis.pipeline(transaction=True)
            self._extend(pipe, code, room["visitor"], float(room["acted"]))
            pipe.execute()

    def counts(self, code: str) -> Counts:
        now = self._clock()
        room = self._room(code)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zcount(room + ":follow", now, "+inf")
        pipe.zcount(room + ":branched", now, "+inf")
        following, branched = pipe.execute()
        return Counts(int(following), int(branched))

    def answer(
        self, code: str, visitor: str, question: str, value: Any, name: str = ""
    ) -> None:
        room = self._room(code)
        raw = self._redis.hget(room, "question")
        if raw is None:
            raise Refusal("closed")
        q = json.loads(raw) if raw else None
        if q is None or q["id"] != question or not q["open"]:
            raise Refusal("no_question")
        pipe = self._redis.pipeline(transaction=False)
        pipe.hincrby(room + ":changes", visitor, 1)
        pipe.hlen(room + ":answers")
        pipe.hexists(room + ":answers", visitor)
        changes, answered, known = pipe.execute()
        if changes > limits.ANSWER_CHANGES:
            raise Refusal("answers")
        if not known and answered >= limits.MAX_FOLLOWERS:
            raise Refusal("full")
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(room + ":answers", visitor, json.dumps(value))
        if name:
            pipe.hset(room + ":names", visitor, name)
        ttl = self._redis.pttl(room)
        for key in (room + ":answers", room + ":changes", room + ":names"):
            if ttl > 0:
                pipe.pexpire(key, ttl)
        pipe.execute()

    def clear(self) -> None:
        for key in self._redis.scan_iter(PREFIX + "*"):
            self._redis.delete(key)
        with self._lock:
            self._owned.clear()
            self._local.clear()
