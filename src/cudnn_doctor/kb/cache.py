"""The cache on disk: plain data only, so nothing in it can run code.

Two kinds of entries, one file each (``<kind>-<digest of the key>.cache``), the key written inside and
checked on load (a stale or colliding file is a miss):

* JSON values (``load`` / ``store``): the compiled catalog's validated records and the values derived from
  them (kb/compiled.py), kept as the JSON value read back, in ``marshal``'s format (the same plain data; read
  ~3x faster than JSON text);
* bytes (``load_bytes`` / ``store_bytes``): hyperscan's serialized databases (``hyperscan_database``), which
  hyperscan itself checks when it deserializes them; and beside a catalog's entry the arguments that rebuild
  its compiled patterns (kb/patterns.py ``kept_code``: plain data, strings, numbers, bytes and containers of
  them, in ``marshal``'s format; nothing in it is run: it is handed to the `regex` package's own unpickling
  function, an engine program for its C code as a hyperscan database is for hyperscan's) and the values
  derived from them (``kept_derived``: plain data in ``marshal``'s format).

Every failure here means "no cache", never a failed run:

* an entry that does not parse, or holds another key, is a miss: the caller rebuilds it and it is written
  again;
* a write goes to a temporary file in the same directory, renamed into place; a failed write (a full disk, a
  read-only directory) removes its temporary file;
* a directory that cannot be used (not this user's, writable by group or others as a restored CI cache often
  is, not writable) is said once on stderr, and a private one (``cudnn-doctor-<uid>`` in the system temp
  directory, mode 0700) is used instead; when that cannot be used either, the run goes on without a cache
  (said once too). Only a private directory is trusted: a hyperscan database and a compiled pattern's code
  are native code's input.

The MAX_ENTRIES most recently used entries of each kind are kept.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

ENV_CACHE = "CUDNN_DOCTOR_CACHE_DIR"
MAX_ENTRIES = 8
HYPERSCAN_ENTRIES = 16  # the compiled databases of one kind kept (a prefilter's: one per set of literals)
_BYTES_MAGIC = b"cudnn-doctor-bytes-1\n"  # then the key's length (4 bytes), the key, the data

try:  # the interpreter's built-in BLAKE2: hashlib imports OpenSSL, which costs a pasted traceback's start-up
    from _blake2 import blake2b as _blake2b  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - another interpreter
    from hashlib import blake2b as _blake2b


def digest(data: bytes, size: int = 16) -> str:
    """A hex BLAKE2b digest of ``data``."""
    return _blake2b(data, digest_size=size).hexdigest()  # type: ignore[no-any-return]


def configured_dir() -> str:
    """The cache directory asked for: ``CUDNN_DOCTOR_CACHE_DIR``, else the platform's user cache directory."""
    if os.environ.get(ENV_CACHE):
        return os.environ[ENV_CACHE]
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.environ.get("LOCALAPPDATA") if sys.platform == "win32" else None
    ) or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cudnn-doctor")


def _fallback_dir() -> str:
    import tempfile  # here: only a directory that cannot be used needs it (it imports shutil, random...)

    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"cudnn-doctor-{uid}")


# the directory in use for each directory asked for, decided once per process (None: no cache)
_chosen: dict[str, str | None] = {}


def cache_dir() -> str | None:
    """The directory entries are read from and written to, or None when no directory can be used."""
    wanted = configured_dir()
    if wanted not in _chosen:
        _chosen[wanted] = _choose(wanted)
    return _chosen[wanted]


def _choose(wanted: str) -> str | None:
    why = _unusable(wanted)
    if why is None:
        return wanted
    fallback = _fallback_dir()
    why_not = _unusable(fallback)
    if why_not is None:
        _say(f"the cache directory {wanted} {why}: using {fallback} instead")
        return fallback
    _say(f"the cache directory {wanted} {why}, and {fallback} {why_not}: running without a cache (slower)")
    return None


def _unusable(path: str) -> str | None:
    """Why ``path`` cannot hold the cache (made if absent), or None when it can."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError as exc:
        return f"cannot be made ({exc.strerror or exc})"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        return "belongs to another user"
    if getuid is not None and st.st_mode & 0o022:
        return f"is writable by others (mode {st.st_mode & 0o777:04o}; chmod go-w to use it)"
    if not os.access(path, os.W_OK | os.X_OK):
        return "is not writable"
    return None


def _say(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"cudnn-doctor: {message}", file=sys.stderr)


def _file(base: str, key: str, kind: str) -> str:
    return os.path.join(base, f"{kind}-{digest(key.encode('utf-8', 'surrogatepass'), 10)}.cache")


def _read(key: str, kind: str) -> bytes | None:
    base = cache_dir()
    if base is None:
        return None
    path = _file(base, key, kind)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
            mtime = os.fstat(fh.fileno()).st_mtime
    except OSError:
        return None
    if time.time() - mtime > 3600:  # most recently used (to the hour): kept when older ones are pruned;
        with contextlib.suppress(OSError):  # not on every run: a write would cost a pasted traceback's start-up
            os.utime(path)
    return data


def stamp(key: str, kind: str = "catalog") -> tuple[int, int, int] | None:
    """What identifies the stored entry of ``key`` as it is now (inode, size, mtime), or None when there is
    none: a value read from it stays valid while its stamp does not change."""
    base = cache_dir()
    if base is None:
        return None
    try:
        st = os.stat(_file(base, key, kind))
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def load(key: str, kind: str = "catalog") -> Any:
    """The JSON value stored under ``key``, or None (missing, unreadable, corrupt, another key's)."""
    data = load_bytes(key, kind)
    try:
        return marshal.loads(data) if data else None
    except (ValueError, EOFError, TypeError):
        return None


def store(key: str, value: Any, kind: str = "catalog", keep: int = MAX_ENTRIES) -> None:
    """Keep the JSON value ``value`` under ``key``; prune all but the ``keep`` most recently used of ``kind``.

    Kept as that JSON value read back (lists, dicts with string keys, strings, numbers, booleans, None), in
    ``marshal``'s format: what ``load`` gives is what ``json.loads(json.dumps(value))`` gives, read ~3x faster
    than JSON text (a pasted traceback reads the catalog's 2.8 MB: ~22 -> ~8 ms)."""
    try:
        data = marshal.dumps(json.loads(json.dumps(value, ensure_ascii=False)))
    except (TypeError, ValueError):
        return
    store_bytes(key, data, kind, keep)


def load_bytes(key: str, kind: str) -> bytes | None:
    """The bytes stored under ``key``, or None."""
    data = _read(key, kind)
    if data is None or not data.startswith(_BYTES_MAGIC):
        return None
    at = len(_BYTES_MAGIC)
    size = int.from_bytes(data[at : at + 4], "little")
    if data[at + 4 : at + 4 + size] != key.encode("utf-8", "surrogatepass"):
        return None
    return data[at + 4 + size :]


def store_bytes(key: str, value: bytes, kind: str, keep: int = MAX_ENTRIES) -> None:
    encoded = key.encode("utf-8", "surrogatepass")
    _write(key, _BYTES_MAGIC + len(encoded).to_bytes(4, "little") + encoded + value, kind, keep)


def _write(key: str, data: bytes, kind: str, keep: int) -> None:
    """``data`` into the entry's file, whole or not at all (a temporary file renamed into place)."""
    base = cache_dir()
    if base is None:
        return
    fd, tmp = -1, ""
    try:
        tmp = os.path.join(base, f".{kind}-{os.getpid()}-{os.urandom(6).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
        os.replace(tmp, _file(base, key, kind))
        tmp = ""
        _prune(base, _file(base, key, kind), kind, keep)
    except OSError as exc:
        _say_once(f"cannot write to the cache directory {base} ({exc.strerror or exc}): it is read again next time")
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


_said: set[str] = set()


def say_building() -> None:
    """Say once on stderr that the knowledge base is being compiled into the cache: a first run after an
    install, an upgrade or an edit of the signatures takes seconds where later runs take a fraction of one, and
    a silent wait looks like a hang. Nothing is said where no cache directory can be used (said already)."""
    base = cache_dir()
    if base is not None:
        _say_once(f"note: compiling the knowledge base (a few seconds; kept in {base} for the runs after this one)")


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        _say(message)


def _prune(base: str, newest: str, kind: str, keep: int) -> None:
    entries = []
    with os.scandir(base) as listing:
        names = [entry.name for entry in listing]
    for name in names:
        path = os.path.join(base, name)
        with contextlib.suppress(OSError):
            # this kind's own entries only ('hyperscan-<id>', not another kind's 'hyperscan-x-<id>')
            if name.startswith(f"{kind}-") and name.endswith(".cache") and "-" not in name[len(kind) + 1 :]:
                entries.append((path == newest, os.stat(path).st_mtime_ns, path))
            elif name.endswith(".tmp") and name.startswith(".") and time.time() - os.stat(path).st_mtime > 3600:
                os.unlink(path)  # a temporary file a killed run left behind
    for _, _, path in sorted(entries, reverse=True)[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def hyperscan_database(
    hyperscan: Any, key: str, make: Callable[[], tuple[list[bytes], list[int], list[int]]], kind: str = "hyperscan", keep: int = HYPERSCAN_ENTRIES
) -> Any:
    """A block-mode hyperscan database: deserialized from the cache where ``key`` was compiled before, else
    compiled from ``make()`` (expressions, ids, flags) and kept (``keep`` entries of ``kind``). A database
    hyperscan refuses (another CPU, another version, a damaged file) is compiled again. Raises what compiling
    raises."""
    blob = load_bytes(key, kind)
    if blob is not None:
        try:
            db = hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK)
            db.scratch = hyperscan.Scratch(db)
            return db
        except Exception:  # another platform's or hyperscan's: compiled again below
            pass
    expressions, ids, flags = make()
    db = hyperscan.Database()
    db.compile(expressions=expressions, ids=ids, flags=flags)
    with contextlib.suppress(Exception):
        store_bytes(key, bytes(hyperscan.dumpb(db)), kind, keep)
    return db
