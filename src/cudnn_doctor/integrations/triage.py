"""Triage many CI logs: diagnose each one, then count per signature across them (``cudnn-doctor triage``).

The unit of work is :func:`triage_log`: one log (a path or an fsspec URL such as ``s3://bucket/ci/123.log``)
in, one JSON-able record out. It loads the catalog once per process (or Dask worker) and reuses it, so any
engine that maps a function over a list can run it: the CLI runs it on a local process pool, on a Dask
cluster (``--dask``), and docs/triage.md shows Spark and Ray. :func:`aggregate` folds the records into one
row per signature: how many logs, first and last seen (a timestamp in the log, else the file's mtime) and
example logs. Records come back in input order whatever the engine, so every engine gives the same output.
"""

from __future__ import annotations

import glob
import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import DoctorError, InputError, UsageError

EXAMPLES = 3  # example logs kept per signature
STAMP_BYTES = 64 << 10  # where a log's first / last timestamp is looked for (its head and tail)
MAX_MATCH = 200
_GLOB = re.compile(r"[*?\[]")
# 2024-05-14T09:12:01.1234567Z (GitHub Actions), 2024-05-14 09:12:01,123 (logging), +02:00 offsets
_STAMP = re.compile(
    rb"(?<!\d)(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s?(Z|[+-]\d{2}:?\d{2})?(?!\d)"
)


@dataclass(frozen=True, slots=True)
class CatalogSpec:
    """Which knowledge base a worker loads: the built-in one and/or signature directories (paths that exist
    where the worker runs)."""

    signatures: tuple[str, ...] = ()
    builtin: bool = True
    ignore: tuple[str, ...] = ()  # ids of signatures never reported (--ignore)


_catalogs: dict[CatalogSpec, Any] = {}
_lock = threading.Lock()


def worker_catalog(spec: CatalogSpec = CatalogSpec()) -> Any:
    """The catalog for ``spec``, loaded once per process and kept (threads of a Dask worker share it)."""
    got = _catalogs.get(spec)
    if got is None:
        with _lock:
            got = _catalogs.get(spec)
            if got is None:
                from ..kb.compiled import load_catalog

                got = load_catalog(list(spec.signatures), builtin=spec.builtin)
                if spec.ignore:
                    import dataclasses

                    got = dataclasses.replace(got, signatures=[s for s in got.signatures if s.id not in spec.ignore])
                _catalogs[spec] = got
                from ..env.detect import EnvironmentCollector
                from ..match import Matcher

                # compile the prefilter's hyperscan database now, once: every log of this worker shares it
                _ = Matcher(got, probes=EnvironmentCollector().probes()).prefilter.engine
    return got


# ----------------------------------------------------------------------------------------------- inputs


def is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def expand(paths: Iterable[str], skipped: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Files, directories (recursively, hidden entries skipped), globs (``**`` too) and fsspec URLs to a list
    of logs in a stable order (duplicates dropped). Returns (logs, problems). A path that is no regular file
    (a FIFO, which would block the run, a socket, a device) is left out and named in ``skipped``, as a
    directory walk leaves them out."""
    out: list[str] = []
    problems: list[str] = []
    irregular: list[str] = []
    for arg in paths:
        try:
            found = _expand_one(arg)
        except DoctorError:
            raise
        except Exception as exc:  # fsspec's and the storage's own errors
            problems.append(f"{arg}: {type(exc).__name__}: {exc}")
            continue
        kept = [f for f in found if is_url(f) or _regular(f)]
        irregular += [f for f in found if f not in kept]
        if not kept and not (found and skipped is not None):
            problems.append(f"{arg}: no log found" if not found else f"{arg}: not a regular file (a FIFO, socket or device)")
        out += kept
    if skipped is not None:
        skipped += [f"{f}: not a regular file (a FIFO, socket or device): skipped" for f in dict.fromkeys(irregular)]
    return list(dict.fromkeys(out)), problems


def _expand_one(arg: str) -> list[str]:
    """The logs one argument names: a URL's, a glob's, a directory's (walked) or the file itself."""
    if is_url(arg):
        return _expand_url(arg)
    local = arg[len("file://") :] if arg.startswith("file://") else arg
    if _GLOB.search(local):
        found: list[str] = []
        for hit in sorted(glob.glob(local, recursive=True)):
            found += _walk(Path(hit)) if Path(hit).is_dir() else [hit]
        return found
    if Path(local).is_dir():
        return _walk(Path(local))
    return [local] if Path(local).exists() else []


def _regular(path: str) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path[len("file://") :] if path.startswith("file://") else path).st_mode)
    except OSError:
        return True  # gone or unreadable: reported when it is read


def _walk(root: Path) -> list[str]:
    return sorted(
        str(p) for p in root.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:
        raise UsageError("reading URLs needs fsspec (pip install fsspec, and s3fs or gcsfs; in a clone of cudnn-doctor: pip install '.[dask]')") from None
    return fsspec


def _expand_url(url: str) -> list[str]:
    fs, path = _fsspec().core.url_to_fs(url)
    if _GLOB.search(path):
        hits = sorted(fs.glob(path))
        found = [h for h in hits if not fs.isdir(h)]
        for h in hits:
            if fs.isdir(h):
                found += sorted(fs.find(h))
    elif fs.isdir(path):
        found = sorted(fs.find(path))
    elif fs.exists(path):
        found = [path]
    else:
        found = []
    return [fs.unstrip_protocol(p) for p in found]


def _source(log: str) -> tuple[Any, float | None]:
    """(input.Source, mtime as a POSIX timestamp or None) for a path or URL."""
    from ..read.sources import Source, file_opener

    if not is_url(log):
        path = Path(log[len("file://") :] if log.startswith("file://") else log)
        try:
            st = path.stat()
        except OSError as exc:
            raise InputError(f"{log}: cannot open: {exc.strerror or exc}") from exc
        if path.is_dir():
            raise InputError(f"{log}: is a directory")
        return Source(log, file_opener(path), st.st_size, path=str(path)), st.st_mtime
    fs, path = _fsspec().core.url_to_fs(log)
    try:
        info = fs.info(path)
    except Exception as exc:
        raise InputError(f"{log}: cannot open: {type(exc).__name__}: {exc}") from exc
    mtime = _info_mtime(info)

    def opener() -> Any:
        try:
            return fs.open(path, "rb")
        except Exception as exc:
            raise InputError(f"{log}: cannot open: {type(exc).__name__}: {exc}") from exc

    return Source(log, opener, info.get("size")), mtime


def _info_mtime(info: dict[str, Any]) -> float | None:
    for key in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(key)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, datetime):
            return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
        if isinstance(value, str):
            when = _parse_stamp(value.encode())
            if when is not None:
                return when.timestamp()
    return None


# ----------------------------------------------------------------------------------------------- times


def _parse_stamp(data: bytes, last: bool = False) -> datetime | None:
    """The first (or last) valid timestamp in ``data``, as an aware datetime (UTC when no offset is given)."""
    if last:  # the end first: most logs have a timestamp on their last lines
        matches = list(_STAMP.finditer(data, max(0, len(data) - 2048))) or list(_STAMP.finditer(data))
        matches.reverse()
    else:
        matches = [m for m in [_STAMP.search(data)] if m]
    for m in matches:
        y, mo, d, h, mi, s, frac, tz = m.groups()
        try:
            when = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), int((frac or b"0")[:6].ljust(6, b"0")))
        except ValueError:
            continue
        if tz and tz != b"Z":
            sign = 1 if tz[:1] == b"+" else -1
            digits = tz[1:].replace(b":", b"")
            offset = sign * (int(digits[:2]) * 60 + int(digits[2:]))
            from datetime import timedelta

            when = when.replace(tzinfo=timezone(timedelta(minutes=offset)))
        else:
            when = when.replace(tzinfo=timezone.utc)
        return when.astimezone(timezone.utc)
    return None


def _iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def log_times(source: Any) -> tuple[datetime | None, datetime | None]:
    """First and last timestamp written in a log: its head, and for a plain file its tail (a gzip log or a
    stream gives its head only)."""
    first = last = None
    try:
        raw = source.opener()
        try:
            head = raw.read(STAMP_BYTES)
            gz = head[:2] == b"\x1f\x8b"
            if gz:  # the first STAMP_BYTES of the text (a cut-off gzip stream decompresses as far as it goes)
                import zlib

                head = zlib.decompressobj(wbits=31).decompress(head, STAMP_BYTES)
        finally:
            raw.close()
        first = _parse_stamp(head)
        if source.path is not None and (source.size or 0) > STAMP_BYTES:
            with open(source.path, "rb") as fh:
                fh.seek(max(0, (source.size or 0) - STAMP_BYTES))
                tail = fh.read(STAMP_BYTES)
            if not gz:
                last = _parse_stamp(tail, last=True)
        elif first is not None:
            last = _parse_stamp(head, last=True)
    except (InputError, OSError, EOFError, ValueError):
        return None, None
    return first, last or first


# ----------------------------------------------------------------------------------------------- one log


def triage_log(
    log: str,
    *,
    spec: CatalogSpec = CatalogSpec(),
    lang: str = "en",
    threshold: float | None = None,
) -> dict[str, Any]:
    """Diagnose one log (a path or an fsspec URL); a JSON-able record, never an exception for a bad log.

    ``{"log", "first_seen", "last_seen", "seen_from" ("log"/"mtime"/null), "bytes", "lines", "findings":
    [{"id", "title", "severity", "confidence", "count", "line", "last_line", "match"}], "environment":
    {component: version}, "error"}``. The catalog is loaded once per process (:func:`worker_catalog`).
    """
    from ..scan import Options, diagnose_sources

    record: dict[str, Any] = {"log": log, "first_seen": None, "last_seen": None, "seen_from": None, "bytes": 0,
                              "lines": 0, "findings": [], "environment": {}, "error": None}
    try:
        source, mtime = _source(log)
        options = Options(lang=lang, jobs=1)
        if threshold is not None:
            options.threshold = threshold
        diagnosis = diagnose_sources(_members(log, source), catalog=worker_catalog(spec), options=options)
        first, last = log_times(source)
    except DoctorError as exc:
        record["error"] = str(exc)
        return record
    if first is not None:
        record.update(first_seen=_iso(first), last_seen=_iso(last or first), seen_from="log")
    elif mtime is not None:
        when = _iso(datetime.fromtimestamp(mtime, timezone.utc))
        record.update(first_seen=when, last_seen=when, seen_from="mtime")
    record["bytes"], record["lines"] = diagnosis.bytes_read, diagnosis.lines_read
    record["environment"] = {k: v["version"] for k, v in diagnosis.environment.items()}
    record["findings"] = [
        {
            "id": f.id,
            "title": f.signature.title,
            "severity": f.signature.severity,
            "confidence": f.confidence,
            "count": f.count,
            "line": f.first.line,
            "last_line": f.last.line,
            "match": f.first.text[:MAX_MATCH],
        }
        for f in diagnosis.findings
    ]
    if diagnosis.input_errors:
        record["error"] = diagnosis.input_errors[0]
    elif not diagnosis.sources:  # a zip archive whose every member was skipped
        record["error"] = f"{log}: no text log read (every file was skipped)"
    return record


def _members(log: str, source: Any) -> list[Any]:
    """The sources of one log: a local zip archive (a CI job's logs) is its members, aggregated."""
    if is_url(log) or not log.lower().endswith(".zip"):
        return [source]
    from ..read.sources import zip_sources

    return zip_sources(Path(source.path or log), None)


# ----------------------------------------------------------------------------------------------- engines


def triage_logs(logs: Sequence[str], **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`triage_log` over several logs (one task of a distributed engine)."""
    return [triage_log(log, **kwargs) for log in logs]


def _pool_one(args: tuple[str, CatalogSpec, str, float | None]) -> dict[str, Any]:
    log, spec, lang, threshold = args
    return triage_log(log, spec=spec, lang=lang, threshold=threshold)


def _pool_init(spec: CatalogSpec) -> None:
    worker_catalog(spec)


def run_local(logs: Sequence[str], spec: CatalogSpec, jobs: int = 0, lang: str = "en", threshold: float | None = None) -> Iterator[dict[str, Any]]:
    """Records in input order, from a pool of ``jobs`` processes (0: one per CPU; 1: this process)."""
    if jobs <= 0:
        try:
            jobs = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            jobs = os.cpu_count() or 1
    jobs = min(jobs, max(1, len(logs)))
    work = [(log, spec, lang, threshold) for log in logs]
    if jobs == 1:
        worker_catalog(spec)
        yield from map(_pool_one, work)
        return
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    worker_catalog(spec)  # loaded (and its cache file written) once, before the workers start
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_pool_init, initargs=(spec,)) as pool:
        yield from pool.map(_pool_one, work, chunksize=max(1, min(64, len(work) // (jobs * 8) or 1)))


def run_dask(
    logs: Sequence[str],
    spec: CatalogSpec,
    scheduler: Any = "local",
    workers: int = 2,
    lang: str = "en",
    threshold: float | None = None,
    batch: int = 2048,
    chunk: int = 16,
) -> Iterator[dict[str, Any]]:
    """Records in input order, computed on a Dask distributed cluster: ``scheduler`` is an address
    (``tcp://host:8786``), a ``distributed.Client``, or ``"local"`` for a LocalCluster of ``workers``
    processes on this machine. Each task diagnoses ``chunk`` logs; results are gathered in batches, so memory
    holds ``batch`` records."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs dask.distributed (pip install 'dask[distributed]'; in a clone of cudnn-doctor: pip install '.[dask]')") from None
    own: list[Any] = []
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler == "local":
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        own += [client, cluster]
    else:
        try:
            client = Client(scheduler, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"--dask {scheduler}: cannot reach the scheduler ({exc})") from None
        own.append(client)
    try:
        for i in range(0, len(logs), batch):
            part = list(logs[i : i + batch])
            # tasks of `chunk` logs: one task per log costs the scheduler more than a small log's diagnosis
            chunks = [part[j : j + chunk] for j in range(0, len(part), chunk)]
            futures = client.map(triage_logs, chunks, spec=spec, lang=lang, threshold=threshold, pure=False)
            for records in client.gather(futures):
                yield from records
    finally:
        for thing in own:
            thing.close()


# ----------------------------------------------------------------------------------------------- aggregate


@dataclass(slots=True)
class SignatureRow:
    """One signature's line in a triage report: how many logs, first and last seen, example logs."""

    id: str
    title: str
    severity: str
    logs: int = 0
    occurrences: int = 0
    first_seen: str | None = None
    last_seen: str | None = None
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "severity": self.severity, "logs": self.logs,
                "occurrences": self.occurrences, "first_seen": self.first_seen, "last_seen": self.last_seen,
                "examples": list(self.examples)}


@dataclass(slots=True)
class Summary:
    """A triage run's aggregate: logs read, logs with findings, errors, bytes and a row per signature."""

    logs: int = 0
    with_findings: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    bytes: int = 0
    rows: dict[str, SignatureRow] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        self.logs += 1
        self.bytes += int(record.get("bytes") or 0)
        if record.get("error"):
            self.errors.append((record["log"], record["error"]))
        if record["findings"]:
            self.with_findings += 1
        first, last = record.get("first_seen"), record.get("last_seen")
        for f in record["findings"]:
            row = self.rows.get(f["id"])
            if row is None:
                row = self.rows[f["id"]] = SignatureRow(f["id"], f["title"], f["severity"])
            row.logs += 1
            row.occurrences += int(f["count"])
            if first is not None and (row.first_seen is None or first < row.first_seen):
                row.first_seen = first
            if last is not None and (row.last_seen is None or last > row.last_seen):
                row.last_seen = last
            if len(row.examples) < EXAMPLES:
                row.examples.append(f"{record['log']}:{f['line']}")

    def ordered(self) -> list[SignatureRow]:
        return sorted(self.rows.values(), key=lambda r: (-r.logs, r.id))

    def to_dict(self) -> dict[str, Any]:
        return {"logs": self.logs, "logs_with_findings": self.with_findings, "bytes": self.bytes,
                "errors": [{"log": log, "error": err} for log, err in self.errors],
                "signatures": [r.to_dict() for r in self.ordered()]}


def aggregate(records: Iterable[dict[str, Any]]) -> Summary:
    """Fold per-log records (:func:`triage_log`) into one row per signature."""
    summary = Summary()
    for record in records:
        summary.add(record)
    return summary


# ----------------------------------------------------------------------------------------------- render


def render_summary(summary: Summary, fmt: str = "terminal") -> str:
    if fmt == "json":
        import json

        return json.dumps(summary.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown(summary)
    return _terminal(summary)


def _day(stamp: str | None) -> str:
    return stamp[:16].replace("T", " ") if stamp else "-"


def _terminal(summary: Summary) -> str:
    from ..render.terminal import safe

    lines = [f"{summary.logs} log(s), {summary.with_findings} with a finding, {len(summary.errors)} unreadable"]
    rows = summary.ordered()
    if rows:
        width = max(len(r.id) for r in rows)
        lines.append(f"{'signature':{width}}  {'logs':>5}  {'first seen':16}  {'last seen':16}  example")
        for r in rows:
            lines.append(f"{safe(r.id):{width}}  {r.logs:>5}  {_day(r.first_seen):16}  {_day(r.last_seen):16}  {safe(r.examples[0]) if r.examples else ''}")
    for log, err in summary.errors[:20]:
        lines.append(f"unreadable: {safe(err if log in err else f'{log}: {err}')}")
    if len(summary.errors) > 20:
        lines.append(f"... and {len(summary.errors) - 20} more unreadable log(s)")
    return "\n".join(lines) + "\n"


def _markdown(summary: Summary) -> str:
    from ..render.markdown import code, text

    out = [
        "## cudnn-doctor triage",
        "",
        text(f"{summary.logs} log(s) scanned, {summary.with_findings} with a finding, "
             f"{len(summary.errors)} unreadable."),
        "",
    ]
    rows = summary.ordered()
    if rows:
        out += ["| signature | logs | first seen | last seen | example logs |", "| --- | ---: | --- | --- | --- |"]
        for r in rows:
            examples = "<br>".join(code(e, table=True) for e in r.examples)
            out.append(f"| {code(r.id, table=True)}<br>{text(r.title)} | {r.logs} | {text(_day(r.first_seen))} | "
                       f"{text(_day(r.last_seen))} | {examples} |")
        out.append("")
    else:
        out += [text("No known cuDNN RNN error in these logs."), ""]
    if summary.errors:
        out += ["<details><summary>" + text(f"{len(summary.errors)} unreadable log(s)") + "</summary>", ""]
        out += [f"- {text(err)}" for _log, err in summary.errors[:50]]
        out += ["", "</details>", ""]
    return "\n".join(out)
