"""The compiled-catalog cache on disk: signed, owner-checked, one file per key, a few keys kept.

Why a pickle at all: the `regex` module compiles in Python (all 331 patterns of the built-in base: ~0.9 s),
and only a pickle of the compiled patterns rebuilds them without parsing (bench/README.md has the figures).
A pickle executes code when loaded, so nothing is unpickled unless

* its MAC (keyed BLAKE2b over the key and the payload) verifies with a secret key of this user, kept outside the
  cache directory in ``$XDG_CONFIG_HOME/cudnn-doctor/cache.key`` (mode 0600, owned by the user; created on
  first use). A cache directory shared between CI jobs or users, or chosen by ``CUDNN_DOCTOR_CACHE_DIR``, can
  then hold only files this user's key signed: anything else is ignored and rebuilt, never loaded;
* the cache directory and the file are owned by the user and not writable by group or others (POSIX).

A value may hold ``Blob``s (the pickled record of each signature: most of a catalog's bytes, and a diagnosis
reads a few). They are stored after the signed core, each named in the core by its place and its BLAKE2b
digest, so the MAC covers them through their digests: loading verifies the core alone, and a blob is checked
against its digest when it is read (``BlobRef``). A blob that fails its check (the file changed on disk behind
its MAC, or the disk lied) removes the file and raises CacheError: it is never unpickled.

Each key (the inputs that shape the catalog: signature files, schema, cudnn-doctor's code, Python and
`regex` versions) has its own file; the MAX_ENTRIES most recently used are kept, so plain runs and
``--signatures`` runs do not evict each other. The prefilter's compiled hyperscan databases are kept the
same way under their own kind (match/prefilter.py), and the context evidence's under another
(match/evidence.py), each kind pruned apart from the others. Every failure here means
"no cache", never an error.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sys
import time

from ..errors import DoctorError

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

ENV_CACHE = "CUDNN_DOCTOR_CACHE_DIR"
MAX_ENTRIES = 8
HYPERSCAN_ENTRIES = 16  # the compiled databases of one kind kept (a prefilter's: one per set of literals)
_MAGIC = b"cudnn-doctor-cache-2\n"  # then the MAC, the core's length (8 bytes), the core, the blobs
_LENGTH = 8
_DIGEST = 32


def cache_dir() -> str | None:
    """The cache directory (a path string: a pasted traceback's start-up does not import pathlib)."""
    if os.environ.get(ENV_CACHE):
        return os.environ[ENV_CACHE]
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.environ.get("LOCALAPPDATA") if sys.platform == "win32" else None
    ) or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cudnn-doctor")


def key_path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or (
        os.environ.get("APPDATA") if sys.platform == "win32" else None
    ) or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "cudnn-doctor", "cache.key")


def _private(st: os.stat_result) -> bool:
    """Owned by this user and not writable (for a key: not readable either) by anyone else (POSIX)."""
    getuid = getattr(os, "getuid", None)
    return getuid is None or (st.st_uid == getuid() and not st.st_mode & 0o022)


def _secret(create: bool) -> bytes | None:
    path = key_path()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        if not create:
            return None
        return _new_secret(path)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not _private(st) or (hasattr(os, "getuid") and st.st_mode & 0o077):
            return None
        secret = fh.read(64)
    return secret if len(secret) >= 32 else None


def _new_secret(path: str) -> bytes | None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:  # another process made it just now
        return _secret(create=False)
    except OSError:
        return None
    secret = os.urandom(32)
    with os.fdopen(fd, "wb") as fh:
        fh.write(secret)
    return secret


try:  # the interpreter's built-in BLAKE2 and constant-time compare: hashlib and hmac import OpenSSL,
    # which costs a pasted traceback's start-up more than the rest of the cache (bench/README.md)
    from _blake2 import blake2b as _blake2b  # type: ignore[import-not-found]
    from _operator import _compare_digest as _same  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another interpreter
    from hashlib import blake2b as _blake2b
    from hmac import compare_digest as _same


def digest(data: bytes, size: int = 16) -> str:
    """A hex BLAKE2b digest of ``data``, from the interpreter's built-in BLAKE2 (no OpenSSL to load)."""
    return _blake2b(data, digest_size=size).hexdigest()  # type: ignore[no-any-return]


def _file(base: str, key: str, kind: str = "catalog") -> str:
    return os.path.join(base, f"{kind}-{_blake2b(key.encode('utf-8', 'surrogatepass'), digest_size=10).hexdigest()}.cache")


def _sign(secret: bytes, key: str, payload: bytes) -> bytes:
    """Keyed BLAKE2b (a MAC by design, RFC 7693) over the key and the payload."""
    mac = _blake2b(key.encode("utf-8", "surrogatepass") + b"\0", key=secret, digest_size=_DIGEST)
    mac.update(payload)
    return mac.digest()  # type: ignore[no-any-return]


def load(key: str, kind: str = "catalog") -> Any:
    """The payload stored under ``key``, or None (missing, foreign, tampered, unreadable, other key)."""
    base = cache_dir()
    if base is None:
        return None
    path = _file(base, key, kind)
    found = _read_private(base, path)
    parts = _verified(key, found[0]) if found is not None else None
    if found is None or parts is None:
        return None
    if time.time() - found[1] > 3600:  # most recently used (to the hour): kept when older ones are pruned;
        with contextlib.suppress(OSError):  # not on every run: a write would cost a pasted traceback's start-up
            os.utime(path)
    try:
        return _Unpickler(parts[0], parts[1], str(path)).load()  # signed with this user's key (module docstring)
    except Exception:
        return None


def _read_private(base: str, path: str) -> tuple[Any, float] | None:
    """The file's bytes (mapped read-only: the blobs are read from disk only when a record is; a paste reads a
    few of them) and mtime, if the directory and the file are this user's alone (else None)."""
    try:
        if not _private(os.stat(base)):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not _private(st):
                return None
            try:
                import mmap

                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), st.st_mtime
            except (ImportError, ValueError, OSError):  # empty, or a file system that cannot map it
                return fh.read(), st.st_mtime
    except OSError:
        return None


def _verified(key: str, data: Any) -> tuple[bytes, memoryview] | None:
    """The core (copied out of the file, then verified: what is unpickled is what was checked) and the blob
    area of a cache file whose core's MAC verifies with this user's secret for ``key`` (else None)."""
    head = len(_MAGIC) + _DIGEST + _LENGTH
    if len(data) < head or data[: len(_MAGIC)] != _MAGIC:
        return None
    secret = _secret(create=False)
    if secret is None:
        return None
    mac = data[len(_MAGIC) : len(_MAGIC) + _DIGEST]
    size = int.from_bytes(data[head - _LENGTH : head], "little")
    core = data[head : head + size]
    if len(core) != size or not _same(mac, _sign(secret, key, core)):
        return None
    return core, memoryview(data)[head + size :]


class CacheError(DoctorError):
    """The cache file a loaded catalog came from failed a check after loading (see the module docstring)."""


class Blob(bytes):
    """Bytes that a cached value keeps outside its signed core (the module docstring): ``store`` puts each after
    the core, named there by place and digest; ``load`` gives a ``BlobRef`` in its place. Any bytes subclass
    whose ``cache_blob`` is true is kept so (model.LazyRecord's records, without importing this module), and
    a ``BlobRef`` stored again."""

    cache_blob = True


class BlobRef:
    """A blob of a loaded cache file, checked against its digest (named in the signed core) when first read."""

    __slots__ = ("_digest", "_path", "_view")
    cache_blob = True  # pickled into a new cache file: kept out of its core as well

    def __init__(self, view: memoryview, digest: bytes, path: str) -> None:
        self._view: memoryview | bytes = view
        self._digest = digest
        self._path = path

    def bytes(self) -> bytes:
        """The blob's bytes, once they match their digest (else the file is removed and CacheError raised)."""
        if isinstance(self._view, bytes):
            return self._view
        data = bytes(self._view)  # copied, then checked: what is unpickled is what was checked
        if _blob_digest(data) != self._digest:
            try:
                os.unlink(self._path)
                done = "the file was removed, run again"
            except OSError:  # Windows: a mapped file cannot be removed
                done = "remove the file and run again"
            raise CacheError(f"{self._path}: a record in the catalog cache failed its check; {done}")
        self._view = data
        return data

    def __reduce__(self) -> tuple[Any, ...]:  # pickled anew (a worker's copy): the bytes
        return (Blob, (self.bytes(),))


def _blob_digest(data: bytes) -> bytes:
    return _blake2b(data, digest_size=_DIGEST).digest()  # type: ignore[no-any-return]


class _Pickler(pickle.Pickler):
    def __init__(self, out: io.BytesIO) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.blobs: list[bytes] = []
        self._at = 0

    def persistent_id(self, obj: Any) -> Any:
        if not getattr(type(obj), "cache_blob", False):
            return None
        data = obj.bytes() if isinstance(obj, BlobRef) else bytes(obj)
        ref = ("blob", self._at, len(data), _blob_digest(data))
        self.blobs.append(data)
        self._at += len(data)
        return ref


class _Unpickler(pickle.Unpickler):
    def __init__(self, core: bytes, blobs: memoryview, path: str) -> None:
        super().__init__(io.BytesIO(core))
        self._blobs = blobs
        self._path = path

    def persistent_load(self, pid: Any) -> Any:
        kind, at, size, digest = pid  # from the signed core: our own store()
        if kind != "blob" or at < 0 or size < 0 or at + size > len(self._blobs):
            raise pickle.UnpicklingError("a blob outside the file")
        return BlobRef(self._blobs[at : at + size], digest, self._path)


def store(key: str, value: Any, kind: str = "catalog", keep: int = MAX_ENTRIES) -> None:
    """Keep ``value`` under ``key`` (signed); prune all but the ``keep`` most recently used entries of its
    ``kind`` (compiled catalogs; hyperscan databases, see match/prefilter.py and match/evidence.py)."""
    base = cache_dir()
    if base is None:
        return
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        if not _private(os.stat(base)):
            return
        secret = _secret(create=True)
        if secret is None:
            return
        out = io.BytesIO()
        pickler = _Pickler(out)
        pickler.dump(value)
        core = out.getvalue()
        tmp = os.path.join(base, f".{kind}-{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + _sign(secret, key, core) + len(core).to_bytes(_LENGTH, "little") + core)
            fh.writelines(pickler.blobs)
        os.replace(tmp, _file(base, key, kind))
        _prune(base, _file(base, key, kind), kind, keep)
    except (OSError, pickle.PicklingError):
        pass


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
            elif name.startswith("catalog-") and name.endswith(".pickle"):  # the unsigned format of earlier versions
                os.unlink(path)
    for _, _, path in sorted(entries, reverse=True)[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def hyperscan_database(
    hyperscan: Any, key: str, make: Callable[[], tuple[list[bytes], list[int], list[int]]], kind: str = "hyperscan", keep: int = HYPERSCAN_ENTRIES
) -> Any:
    """A block-mode hyperscan database: deserialized from the cache (signed with this user's key,
    owner-checked) where ``key`` was compiled before, else compiled from ``make()`` (expressions, ids, flags)
    and kept here (``keep`` entries of ``kind``). A database compiled for another CPU does not load (hyperscan
    checks), and is compiled again. Raises what compiling raises."""
    blob = load(key, kind=kind)
    if isinstance(blob, bytes):
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
        store(key, bytes(hyperscan.dumpb(db)), kind=kind, keep=keep)
    return db
