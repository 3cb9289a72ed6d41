"""Read logs from files, directories, gzip files, stdin or pasted text as blocks of whole lines.

Blocks keep memory flat whatever the size of the log. They stay UTF-8 bytes (UTF-16 with a BOM, as PowerShell
writes, is re-encoded); a line is decoded, with replacement, only where the matcher looks at it, gzip is detected by its magic bytes, and a line longer
than MAX_LINE is cut to its head and tail (a progress bar rewritten with CR for hours can be one line of
hundreds of MB; what a terminal showed is its end). Binary data is refused with a one-line message.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..errors import InputError
from ..kb.patterns import LazyRe

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, BinaryIO

BLOCK_BYTES = 1 << 20  # 1 MiB: measured faster than 4 MiB (cache) and half the peak RSS
MAX_LINE = 64 << 10
_HEAD_KEEP = 8 << 10
_TAIL_KEEP = MAX_LINE - _HEAD_KEEP
_LONG_LINE = LazyRe(rb"[^\n]{%d,}" % (MAX_LINE + 1))
# a gzip log may expand to GZIP_MAX_RATIO times the compressed bytes read so far (and GZIP_FLOOR in any
# case): real logs compress 5-20x; a gzip bomb expands ~1000x (58 MB -> 16 GiB took 82 s before this)
GZIP_MAX_RATIO = 50.0
GZIP_FLOOR = 256 << 20


@dataclass(slots=True)
class ReadStats:
    """What reading a source took in: bytes, lines, and lines cut at MAX_LINE."""

    bytes_read: int = 0
    lines: int = 0
    cut_lines: int = 0


# Where some lines of a block start (offsets, line indexes): the reader no longer counts them (one
# ``bytes.count`` of a block is cheap enough), so ``Block.marks`` is always None; it stays in the tuple while
# match/ unpacks three fields.
Marks = tuple[list[int], list[int]]


class Block(NamedTuple):
    """Whole lines of a log as UTF-8 bytes (joined by newlines, no trailing one) and how many there are."""

    data: bytes
    lines: int
    marks: Marks | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """A named input; ``opener`` returns a binary stream."""

    name: str
    opener: Callable[[], BinaryIO]
    size: int | None = None
    from_directory: bool = False
    path: str | None = None  # a regular file that can be read again in ranges (parallel scanning)


def sources_from_args(args: list[str], stdin: BinaryIO | None) -> tuple[list[Source], list[str]]:
    """Expand file/directory arguments ('-' = stdin). Returns (sources, problems)."""
    out: list[Source] = []
    problems: list[str] = []
    for arg in args:
        if arg == "-":
            if stdin is None:
                problems.append("-: no standard input")
            else:
                out.append(Source("<stdin>", lambda s=stdin: s))
        elif _plain_file(arg):  # the common case, without pathlib (start-up)
            out.append(Source(arg, file_opener(arg), _size(arg), path=arg))
        else:
            _path_sources(arg, out, problems)
    return out, problems


def _path_sources(arg: str, out: list[Source], problems: list[str]) -> None:
    """A directory's files, a zip archive's members, a notebook's cells, or any other path (a FIFO, a device)
    as one source."""
    from pathlib import Path

    path = Path(arg)
    if path.is_dir():
        files = _walk(path)
        if not files:
            problems.append(f"{arg}: directory holds no files")
        out += directory_sources(files)
    elif path.suffix.lower() == ".zip" and path.is_file():
        out += zip_sources(path, problems)
    elif path.suffix.lower() == ".ipynb" and path.is_file() and (cells := notebook_sources(path)) is not None:
        out += cells
    elif path.is_file() or (path.exists() and not path.is_dir()):
        out.append(Source(str(path), file_opener(path), _size(path), path=str(path) if path.is_file() else None))
    else:
        problems.append(f"{arg}: no such file or directory")


def _walk(root: Path) -> list[Path]:
    """A directory's files, recursively, in a stable order; hidden entries left out."""
    return sorted(p for p in root.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))


def notebook_sources(path: Path) -> list[Source] | None:
    """A Jupyter notebook as one source per cell output that shows an error: every ``error`` output (its
    traceback, ANSI colours and all) and every ``stderr`` stream, named ``nb.ipynb[cell N]`` (N counts the
    notebook's cells from 1, so the cell number is the location). None when the file is not a notebook's JSON
    (then it is read as text)."""
    import json  # here: only a notebook pays for it

    try:
        with open(path, "rb") as fh:
            nb = json.loads(fh.read(256 << 20))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    out: list[Source] = []
    for number, cell in enumerate(nb["cells"], 1):
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        parts = [p for o in (outputs if isinstance(outputs, list) else ()) if (p := _output_text(o)) is not None]
        if parts:
            data = "\n".join(p.rstrip("\n") for p in parts).encode("utf-8", "surrogatepass")
            out.append(Source(f"{path}[cell {number}]", lambda d=data: io.BytesIO(d), len(data)))
    return out or [Source(str(path), lambda: io.BytesIO(b""), 0)]


def _output_text(o: Any) -> str | None:
    """The text of a cell output that shows an error (an ``error`` output's traceback, a ``stderr`` stream)."""
    if not isinstance(o, dict):
        return None
    if o.get("output_type") == "error":
        tb = o.get("traceback")
        lines = [t for t in tb if isinstance(t, str)] if isinstance(tb, list) else []
        return "\n".join(x.rstrip("\n") for x in lines) or f"{o.get('ename', '')}: {o.get('evalue', '')}"
    if o.get("output_type") == "stream" and o.get("name") == "stderr":
        text = o.get("text")
        return "".join(text) if isinstance(text, list) else str(text or "")
    return None


def _plain_file(arg: str) -> bool:
    """A regular file whose name Path would print unchanged (POSIX; no '.', empty or trailing component)
    and that is not a notebook: sources_from_args names it as given, without making a Path."""
    if os.sep != "/" or not arg or arg.lower().endswith((".ipynb", ".zip")):
        return False
    parts = arg.split("/")[1:] if arg.startswith("/") else arg.split("/")
    return all(part not in ("", ".") for part in parts) and os.path.isfile(arg)


def _size(path: str | Path) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def file_opener(path: str | Path) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        try:
            return open(path, "rb")  # closed by read_blocks
        except IsADirectoryError as exc:
            raise InputError(f"{path}: is a directory") from exc
        except PermissionError as exc:
            raise InputError(f"{path}: permission denied") from exc
        except OSError as exc:
            raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from exc

    return opener


def text_source(text: str | bytes, name: str = "<text>") -> Source:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return Source(name, lambda: io.BytesIO(data), len(data))


# control bytes a text log does not hold: not those a terminal acts on (backspace, tab, newline, vertical tab,
# form feed, carriage return, escape), which progress bars write by the thousand (Keras' Progbar writes '\b'
# times the bar's width before each update, piped or not)
_BINARY_CONTROLS = bytes([*range(0, 8), *range(14, 27), *range(28, 32)])


def looks_binary(sample: bytes) -> bool:
    """NUL bytes or many control bytes in the first 8 KiB (UTF-16 with a BOM is text; a terminal's
    backspaces and carriage returns are text: normalize.py applies them)."""
    if not sample or sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    sample = sample[:8192]
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _BINARY_CONTROLS))  # one C pass, not a loop per byte
    return controls > len(sample) // 10


class _Counted(io.RawIOBase):
    """Counts the bytes read through it (the compressed side of a gzip stream)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream, self.count = stream, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        data = self.stream.read(len(buf))
        buf[: len(data)] = data
        self.count += len(data)
        return len(data)


class _Bounded(io.RawIOBase):
    """The decompressed side of a gzip stream, refusing to expand past ``ratio`` x the compressed bytes."""

    def __init__(self, gz: BinaryIO, compressed: _Counted, ratio: float, name: str) -> None:
        self.gz, self.compressed, self.ratio, self.name, self.out = gz, compressed, ratio, name, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        data = self.gz.read(len(buf))
        buf[: len(data)] = data
        self.out += len(data)
        if self.ratio > 0 and self.out > max(GZIP_FLOOR, self.ratio * self.compressed.count):
            raise InputError(
                f"{self.name}: gzip data expands over {self.ratio:g}x ({_mib(self.out)} from {_mib(self.compressed.count)} "
                f"compressed): refused as a likely gzip bomb; --max-gzip-ratio N raises the limit (0: none)"
            )
        return len(data)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_blocks(source: Source, stats: ReadStats | None = None, on_bytes: Callable[[int], None] | None = None,
                max_gzip_ratio: float = GZIP_MAX_RATIO) -> Iterator[Block]:
    """Yield the source's text as UTF-8 blocks of whole lines (no trailing newline). Raises InputError.

    Blocks stay bytes: the prefilter scans them as read and only the lines it points at are decoded (invalid
    UTF-8 becomes U+FFFD there). A block boundary is always a newline byte, which never occurs inside a
    multi-byte UTF-8 sequence, so decoding a line on its own gives what decoding the whole file would.
    """
    stats = stats if stats is not None else ReadStats()
    raw = source.opener()
    try:
        try:
            stream: BinaryIO = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
            magic = stream.peek(4)[:4]
        except (OSError, ValueError) as exc:
            raise InputError(f"{source.name}: cannot read: {exc}") from exc
        if magic[:2] == b"\x1f\x8b":
            import gzip  # here: a pasted traceback does not pay for importing it

            counted = _Counted(stream)
            gz = gzip.GzipFile(fileobj=io.BufferedReader(counted))
            stream = io.BufferedReader(_Bounded(gz, counted, max_gzip_ratio, source.name), BLOCK_BYTES)  # type: ignore[arg-type]
        else:
            stream = decompressing(stream, source.name, max_gzip_ratio) or stream  # xz, bzip2, Zstandard
        yield from _blocks(stream, source.name, stats, on_bytes)
    except EOFError as exc:
        raise InputError(f"{source.name}: truncated gzip data") from exc
    except (OSError, MemoryError) as exc:
        if isinstance(exc, InputError):
            raise
        if type(exc).__name__ == "BadGzipFile":  # gzip.BadGzipFile, an OSError
            raise InputError(f"{source.name}: corrupt gzip data: {exc}") from exc
        raise InputError(f"{source.name}: read failed: {exc}") from exc
    finally:
        if source.name != "<stdin>":
            with contextlib.suppress(OSError):
                raw.close()


def plain_text_file(source: Source) -> bool:
    """Whether a source is a regular file of plain (UTF-8) text: not gzip, UTF-16 or binary; such a file can
    be read in byte ranges by several processes."""
    if source.path is None:
        return False
    try:
        with open(source.path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        return False
    return bool(head) and head[:2] != b"\x1f\x8b" and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not looks_binary(head)


class _Range(io.RawIOBase):
    """Bytes start..end of a file, read in pieces that end on multiples of BLOCK_BYTES, so that a range
    starting at 0 gives exactly the blocks a plain read gives, and later ranges the same block edges."""

    def __init__(self, fh: BinaryIO, start: int, end: int) -> None:
        self._fh, self._pos, self._end = fh, start, end
        fh.seek(start)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        n = min(self._end, (self._pos // BLOCK_BYTES + 1) * BLOCK_BYTES) - self._pos
        if n <= 0:
            return b""
        data = self._fh.read(n)
        self._pos += len(data)
        return data


def read_range(path: str, start: int, end: int, stats: ReadStats, on_bytes: Callable[[int], None] | None = None) -> Iterator[Block]:
    """Blocks of bytes start..end of a plain text file (start at a line start, end after a newline or at EOF)."""
    try:
        with open(path, "rb") as fh:
            yield from _blocks(_Range(fh, start, end), path, stats, on_bytes, check_binary=start == 0)  # type: ignore[arg-type]
    except OSError as exc:
        raise InputError(f"{path}: read failed: {exc}") from exc


def _blocks(
    stream: BinaryIO, name: str, stats: ReadStats, on_bytes: Callable[[int], None] | None, check_binary: bool = True
) -> Iterator[Block]:
    first = stream.read(BLOCK_BYTES)
    if not first:
        return
    if check_binary and looks_binary(first):
        raise InputError(f"{name}: binary data, not a text log (NUL or control bytes near the start)")
    recode: codecs.IncrementalDecoder | None = None
    if first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # PowerShell's `>`: re-encode as UTF-8
        recode = codecs.getincrementaldecoder("utf-16")(errors="replace")
    carry = b""
    carry_cut = False  # the carried (unfinished) line was already cut and counted: a re-cut adds to its marker
    data = first
    while data:
        stats.bytes_read += len(data)
        if on_bytes is not None:
            on_bytes(len(data))
        if recode is not None:
            data = recode.decode(data).encode("utf-8", "surrogatepass")
        cut = data.rfind(b"\n")  # the carry (a line's start) holds no newline
        if cut < 0:
            chunk = carry + data
            if len(chunk) > 2 * MAX_LINE:
                carry, carry_cut = _cut_long(chunk, stats, carry_cut), True
            else:
                carry = chunk
        else:
            # the block in one copy (carry + data, then a slice of it, was two of every MiB read)
            block = b"".join((carry, memoryview(data)[:cut])) if carry else data[:cut]
            carry = data[cut + 1 :]
            yield _finish(block, stats, carry_cut)
            carry_cut = False
            if len(carry) > 2 * MAX_LINE:
                carry, carry_cut = _cut_long(carry, stats), True
        data = stream.read(BLOCK_BYTES)
    tail = carry + (recode.decode(b"", final=True).encode("utf-8", "surrogatepass") if recode is not None else b"")
    if tail:
        yield _finish(tail, stats, carry_cut)


def _finish(block: bytes, stats: ReadStats, first_cut: bool = False) -> Block:
    """A block of whole lines; ``first_cut``: its first line was cut (and counted) while it was read."""
    lines = block.count(b"\n") + 1  # counted once here; the matcher and the pipeline reuse it
    stats.lines += lines
    if len(block) > MAX_LINE and _has_long_line(block):
        block = _LONG_LINE.sub(lambda m: _cut_long(m.group(0), stats, first_cut and m.start() == 0), block)
    return Block(block, lines)


def _has_long_line(block: bytes) -> bool:
    """Whether a line is longer than MAX_LINE, hopping from the last newline within reach to the next
    (a regex over every byte of a block would cost more than all the rest of the reading)."""
    prev, n = -1, len(block)
    while n - prev > MAX_LINE + 1:
        prev = block.rfind(b"\n", prev + 1, prev + MAX_LINE + 2)
        if prev < 0:
            return True
    return False


_MARKER = LazyRe(rb" \[\.\.\. (\d+) bytes cut by cudnn-doctor \.\.\.\] ")


def _cut_long(line: bytes, stats: ReadStats, again: bool = False) -> bytes:
    """The line cut to its head and tail around a marker saying how many bytes went. ``again``: the line
    was cut before (a long line is cut as it is read, once per block): counted once, one marker, the total."""
    head = _char_start(line, _HEAD_KEEP)
    before = 0
    if again and (old := _MARKER.match(line, head)) is not None:
        before = int(old.group(1))
        line = line[:head] + line[old.end() :]
    if len(line) <= MAX_LINE and not before:
        return line
    if not again:
        stats.cut_lines += 1
    marker = f" [... {max(0, len(line) - MAX_LINE) + before} bytes cut by cudnn-doctor ...] ".encode()
    if len(line) <= MAX_LINE:
        return line[:head] + marker + line[head:]
    # keep what a terminal would show last (after the final CR) in full when it fits; cut at character
    # boundaries (never inside a UTF-8 sequence: continuation bytes are 0b10xxxxxx)
    last_cr = line.rfind(b"\r")
    head = _char_start(line, _HEAD_KEEP)
    if last_cr >= 0 and len(line) - last_cr <= _TAIL_KEEP:
        return line[:head] + marker + line[last_cr:]
    return line[:head] + marker + line[_char_start(line, len(line) - _TAIL_KEEP) :]


def _char_start(data: bytes, pos: int) -> int:
    while 0 < pos < len(data) and 0x80 <= data[pos] < 0xC0:
        pos -= 1
    return pos


# --------------------------------------------------------------------------- compressed logs other than gzip
# (CI artifacts come as zips; xz, bzip2 and Zstandard logs are read like gzip ones, with the same bound on how
# far they may expand: GZIP_MAX_RATIO / --max-gzip-ratio, GZIP_FLOOR in any case)

_COMPRESSED = ((b"\xfd7zXZ\x00", "xz"), (b"BZh", "bzip2"), (b"\x28\xb5\x2f\xfd", "zstd"))
ZIP_MAX_MEMBERS = 10_000


def decompressing(stream: BinaryIO, name: str, ratio: float) -> BinaryIO | None:
    """The text of an xz, bzip2 or Zstandard stream (recognised by its magic bytes), or of a zip member,
    bounded like gzip; None for anything else."""
    member_size = getattr(stream, "compress_size", None)
    if member_size is not None:  # a zip member (zip_sources): its own compressed size bounds it
        return io.BufferedReader(_Expanding(stream, lambda: member_size, ratio, name, "zip"), BLOCK_BYTES)  # type: ignore[arg-type]
    magic = stream.peek(6)[:6]  # type: ignore[attr-defined]
    kind = next((k for m, k in _COMPRESSED if magic.startswith(m)), None)
    if kind is None:
        return None
    counted = _Counted(stream)
    inner = _decoder(kind, io.BufferedReader(counted), name)
    return io.BufferedReader(_Expanding(inner, lambda: counted.count, ratio, name, kind), BLOCK_BYTES)  # type: ignore[arg-type]


def _decoder(kind: str, raw: BinaryIO, name: str) -> BinaryIO:
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    if kind == "bzip2":
        import bz2

        return bz2.BZ2File(raw)  # type: ignore[return-value]
    try:  # Python 3.14 has Zstandard in the standard library; before, the zstandard package
        from compression import zstd  # type: ignore[import-not-found]

        return zstd.ZstdFile(raw)  # type: ignore[no-any-return]
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raise InputError(f"{name}: a Zstandard (.zst) log: reading it needs the zstandard package (pip install zstandard)") from None
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)  # type: ignore[no-any-return]


class _Expanding(io.RawIOBase):
    """The decompressed side of a stream, refusing to expand past ``ratio`` x the compressed bytes read so far
    (``compressed()``), and saying a corrupt stream in one line."""

    def __init__(self, inner: BinaryIO, compressed: Callable[[], int], ratio: float, name: str, kind: str) -> None:
        self.inner, self.compressed, self.ratio, self.name, self.kind, self.out = inner, compressed, ratio, name, kind, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        try:
            data = self.inner.read(len(buf))
        except InputError:
            raise
        except (OSError, EOFError, ValueError, MemoryError) as exc:
            raise InputError(f"{self.name}: corrupt or truncated {self.kind} data: {exc}") from exc
        except Exception as exc:  # lzma.LZMAError, zstandard.ZstdError, zlib.error: not OSErrors
            raise InputError(f"{self.name}: corrupt {self.kind} data: {exc}") from exc
        buf[: len(data)] = data
        self.out += len(data)
        if self.ratio > 0 and self.out > max(GZIP_FLOOR, self.ratio * self.compressed()):
            raise InputError(
                f"{self.name}: {self.kind} data expands over {self.ratio:g}x ({_mib(self.out)} from "
                f"{_mib(self.compressed())} compressed): refused as a likely decompression bomb; --max-gzip-ratio N "
                "raises the limit (0: none)"
            )
        return len(data)


def directory_sources(files: list[Path]) -> list[Source]:
    """The files of a directory walk as sources (each zip archive as its members)."""
    out: list[Source] = []
    for p in files:
        if p.suffix.lower() == ".zip":
            out += zip_sources(p, None)
        else:
            out.append(Source(str(p), file_opener(p), _size(p), from_directory=True, path=str(p)))
    return out


def zip_sources(path: Path, problems: list[str] | None) -> list[Source]:
    """A zip archive (a CI job's logs) as one source per file in it, named ``archive.zip[member]``; they
    aggregate as a directory's files do. Each member may expand as a gzip log may (--max-gzip-ratio).
    A file that is no zip archive is read as it is (and refused if binary)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, NotImplementedError, RuntimeError):
        return [Source(str(path), file_opener(path), _size(path), path=str(path))]
    if not members and problems is not None:
        problems.append(f"{path}: zip archive holds no files")
    if len(members) > ZIP_MAX_MEMBERS and problems is not None:
        problems.append(f"{path}: zip archive holds {len(members)} files; the first {ZIP_MAX_MEMBERS} are read")
    return [Source(f"{path}[{m.filename}]", _member_opener(path, m), m.file_size, from_directory=True)
            for m in members[:ZIP_MAX_MEMBERS]]


class _Member(io.BufferedReader):
    """A zip member's stream, with the member's compressed size (decompressing bounds it by that)."""

    compress_size = 0


def _member_opener(path: Path, member: Any) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        import zipfile

        try:
            archive = zipfile.ZipFile(path)
            stream = _Member(archive.open(member), BLOCK_BYTES)  # type: ignore[arg-type]
        except (OSError, zipfile.BadZipFile, ValueError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise InputError(f"{path}[{member.filename}]: cannot read the zip member: {exc}") from exc
        stream.compress_size = max(1, member.compress_size)
        return stream  # type: ignore[return-value]

    return opener
