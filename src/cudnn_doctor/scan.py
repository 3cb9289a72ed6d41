"""The pipeline: input -> normalize -> match -> rank -> Diagnosis. The only module that knows the order."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .env.detect import EnvironmentCollector
from .errors import InputError
from .kb.compiled import load_catalog
from .kb.load import Catalog
from .match import MAX_NEAR_MISSES_PER_SIG, Matcher, RawMatch
from .match.reading import Reader
from .model import Finding, NearMiss
from .rank.differential import attach as attach_differentials
from .rank.differential import stand_ins
from .rank.explain import check_messages, explanation
from .rank.findings import (
    CONFIDENCE_THRESHOLD,
    Aggregator,
    apply_versions,
    cluster,
    demote_teardown,
    fold_cascades,
    merge_into,
    order,
)
from .rank.tracebacks import user_frame
from .rank.wrappers import attribute
from .read.normalize import normalize_line
from .read.sources import Block, ReadStats, Source, read_blocks, read_range, text_source
from .report import Diagnosis

if TYPE_CHECKING:
    from typing import Any

# what makes a line look like an error (``FooError`` is found by its end), searched in the raw bytes; the
# lookahead on the first letters lets the engine skip most positions, and the line around a hit is taken by
# find/rfind (a leading ``^.*`` would make it try every position of a 1 MiB block as a line start)
_ERRORISH = re.compile(
    rb"(?=[ETCFef])(?:(?:Error|Exception)\b|Traceback \(most recent call last\)|\bCUDNN_STATUS_\w+|Check failed|"
    rb"\bFATAL\b|^[EF]\d{4} |\berror:|\bfailed\b)",
    re.MULTILINE,
)
MAX_ERROR_LINES = 12
MAX_ERROR_LINES_ALL = 50  # over every input (a directory of thousands of logs)
MAX_SKIPPED_WARNINGS = 20
MARGIN_LINES = 64  # a parallel worker's margin beyond its matcher's context: rechunk's carried lines (20), slack


@dataclass(slots=True)
class Options:
    """How a diagnosis runs: language, environment, confidence threshold, timeouts and processes."""

    lang: str = "en"
    env: Mapping[str, str] = field(default_factory=dict)
    threshold: float = CONFIDENCE_THRESHOLD
    timeout: float = 1.0
    max_gzip_ratio: float = 50.0  # input.GZIP_MAX_RATIO: how far a gzip log may expand (0: no limit)
    jobs: int = 0  # processes for one big file; 0 = CUDNN_DOCTOR_JOBS or the CPUs (Linux), 1 = this one only


def diagnose(
    text: str | bytes,
    *,
    catalog: Catalog | None = None,
    source: str = "<text>",
    lang: str = "en",
    env: Mapping[str, str] | None = None,
    threshold: float = CONFIDENCE_THRESHOLD,
) -> Diagnosis:
    """Diagnose a log or traceback held in memory. The library entry point.

    ``env`` overrides detected versions ({"torch": "2.2.0"}); ``threshold`` is the confidence a finding
    needs (below it, it is listed in ``below_threshold``). ``Diagnosis.to_dict()`` / ``to_json()`` give
    the report of ``--format json``.

    Raises ``errors.InputError`` (a ``DoctorError``) when the text looks like binary data (a NUL, or more than
    one control character in ten, in its first 8 KiB), and ``errors.SignatureError`` when the signatures
    (``catalog`` not given: the built-in ones and $CUDNN_DOCTOR_SIGNATURES) are invalid. Nothing else.
    """
    return diagnose_sources(
        [text_source(text, source)], catalog=catalog,
        options=Options(lang=lang, env=dict(env or {}), threshold=threshold),
    )


def diagnose_sources(
    sources: Sequence[Source],
    *,
    catalog: Catalog | None = None,
    options: Options | None = None,
    on_bytes: Callable[[int], None] | None = None,
    strict_input: bool = True,
) -> Diagnosis:
    """Diagnose several inputs; unreadable ones are recorded in ``input_errors`` (or raised if alone)."""
    options = options or Options()
    catalog = catalog if catalog is not None else load_catalog()
    collector = EnvironmentCollector()
    matcher = Matcher(catalog, probes=collector.probes(), timeout=options.timeout)
    diagnosis = Diagnosis()
    got = _Gathered()
    for src in sources:  # read and match
        collector.source = src.name
        part = _scan_source(src, catalog, options, collector, matcher, on_bytes, diagnosis, got)
        if part is not None:
            got.add(src, part, diagnosis)
    if got.skipped > MAX_SKIPPED_WARNINGS:
        diagnosis.warnings.append(f"... and {got.skipped - MAX_SKIPPED_WARNINGS} more file(s) of the directory skipped")
    if strict_input and diagnosis.input_errors and not diagnosis.sources:
        raise InputError(diagnosis.input_errors[0])
    collector.override(dict(options.env))
    diagnosis.environment = collector.env.to_record()
    diagnosis.warnings += [w for w in matcher.warnings if w not in got.warnings] + got.warnings
    _rank(diagnosis, list(got.findings.values()), got.frames, catalog, collector.env.versions, options)  # then rank
    return diagnosis


def _scan_source(
    src: Source, catalog: Catalog, options: Options, collector: EnvironmentCollector, matcher: Matcher,
    on_bytes: Callable[[int], None] | None, diagnosis: Diagnosis, got: _Gathered,
) -> Part | None:
    """One source scanned (by several processes when it is a big file), or None when it cannot be read (the
    reason recorded: a directory's unreadable file is skipped with a warning, any other is an input error)."""
    try:
        part = _scan_parallel(src, catalog, options, collector, on_bytes)
        if part is None:
            stats = ReadStats()
            part = scan_part(read_blocks(src, stats, on_bytes, options.max_gzip_ratio), src.name, matcher, stats)
    except InputError as exc:
        if not src.from_directory:
            diagnosis.input_errors.append(str(exc))
            return None
        got.skipped += 1
        if got.skipped <= MAX_SKIPPED_WARNINGS:
            diagnosis.warnings.append(f"skipped {exc}")
        return None
    return part


@dataclass
class _Gathered:
    """What the sources gave, before ranking: findings by (source, signature), the lines before each
    signature's first match, warnings, and how many files of a directory were skipped."""

    findings: dict[tuple[str, str], Finding] = field(default_factory=dict)
    frames: dict[tuple[str, str], Sequence[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    framed_in_directory: set[str] = field(default_factory=set)
    skipped: int = 0

    def add(self, src: Source, part: Part, diagnosis: Diagnosis) -> None:
        for sig_id, finding in part.findings.items():
            # the files of a directory aggregate: one finding per signature over N files, not N findings
            key = ("\0directory", sig_id) if src.from_directory else (src.name, sig_id)
            have = self.findings.get(key)
            if have is None:
                self.findings[key] = finding
            else:
                merge_into(have, finding, across_sources=True)
        for sig_id, frame in part.frames.items():  # a directory: the first file's frames only (flat memory)
            if not src.from_directory or sig_id not in self.framed_in_directory:
                self.frames[(src.name, sig_id)] = frame
                if src.from_directory:
                    self.framed_in_directory.add(sig_id)
        self.warnings += [w for w in part.warnings if w not in self.warnings]
        diagnosis.near_misses += part.misses[: max(0, 50 - len(diagnosis.near_misses))]
        diagnosis.sources.append(src.name)
        diagnosis.lines_read += part.stats.lines
        diagnosis.bytes_read += part.stats.bytes_read
        if part.stats.cut_lines:
            diagnosis.warnings.append(f"{src.name}: {part.stats.cut_lines} line(s) longer than 64 KiB were cut to their head and tail")
        if len(diagnosis.error_lines) < MAX_ERROR_LINES_ALL:
            diagnosis.error_lines += part.edges.error_lines(src.name)[: MAX_ERROR_LINES_ALL - len(diagnosis.error_lines)]


def _rank(
    diagnosis: Diagnosis, findings: list[Finding], frames: dict[tuple[str, str], Sequence[str]], catalog: Catalog,
    versions: dict[str, str], options: Options,
) -> None:
    """Findings completed (explanation, checks, versions, the user's frame), stand-ins for ruled-out causes
    added, cascades folded, differentials attached, and all put in the report's order."""

    def complete(f: Finding) -> None:
        f.explanation = explanation(f.signature, f.captures, options.lang)
        f.checks = check_messages(f.signature, f.captures, options.lang)
        apply_versions(f, versions)
        frame = user_frame(frames.get((f.first.source, f.id), []))
        f.user_frame = frame.to_record() if frame else None

    findings[:] = attribute(findings, catalog.signatures, frames)
    for f in findings:
        complete(f)
    # a cause that won its cluster but is ruled out by the versions leaves the generic status in its place
    for f in stand_ins(findings, catalog.by_id, versions, options.threshold):
        frames.setdefault((f.first.source, f.id), frames.get((f.first.source, f.related[0]), []))
        complete(f)
        findings.append(f)
    demote_teardown(findings, frames, options.threshold)  # an abort on the way out after an unknown exception
    confident = [f for f in findings if f.confidence >= options.threshold]
    diagnosis.threshold = options.threshold
    diagnosis.below_threshold = order([f for f in findings if f.confidence < options.threshold], options.threshold, frames)
    top = fold_cascades(order(confident, options.threshold, frames), catalog.get, frames)
    top = attach_differentials(top, catalog.signatures, catalog.evidence, versions, frames, options.lang)
    diagnosis.findings = order(top, options.threshold, frames)
    matched = {f.id for f in findings}
    diagnosis.near_misses = [n for n in diagnosis.near_misses if n.id not in matched]


@dataclass(slots=True)
class Part:
    """What scanning one source (or one byte range of it) found; line numbers count from its first line."""

    findings: dict[str, Finding]  # by signature id
    frames: dict[str, Sequence[str]]  # the lines before each signature's first match
    misses: list[NearMiss]
    stats: ReadStats
    edges: _Edges
    warnings: list[str]


def scan_part(blocks: Iterator[Block], name: str, matcher: Matcher, stats: ReadStats, own: range | None = None, tail: bool = True) -> Part:
    """Match, cluster and aggregate one source's blocks; with ``own`` (a parallel worker's lines), only the
    clusters whose winner and the near misses are on a line in it; ``tail``: whether the blocks end where the
    source does (a worker whose margin ends before it skips the last lines' tolerant reading: they are not its own)."""
    edges = _Edges()
    aggregator = Aggregator()
    frames: dict[str, Sequence[str]] = {}
    misses: list[NearMiss] = []
    pending: list[RawMatch] = []
    for m, miss in Reader(matcher, tail).scan(edges.watch(blocks), name):
        if m is not None:
            pending.append(m)
        elif miss is not None:
            if len(misses) < 50 and (own is None or miss.line in own):
                misses.append(NearMiss(miss.sig.id, miss.sig.title, miss.source, miss.line, miss.reason))
        else:  # block end
            _gather(pending, aggregator, frames, own)
            pending = []
    _gather(pending, aggregator, frames, own)
    return Part({sid: f for (_, sid), f in aggregator.findings.items()}, frames, misses, stats, edges, list(matcher.warnings))


def _gather(pending: list[RawMatch], aggregator: Aggregator, frames: dict[str, Sequence[str]], own: range | None) -> None:
    """A block's matches clustered and aggregated (those of ``own``'s clusters only); the lines before each
    signature's first match kept."""
    kept: list[RawMatch] = []
    for winner, related in cluster(pending):
        if own is None or winner.line in own:
            aggregator.add(winner, related)
            kept.append(winner)
    if own is not None:
        keep = {id(w) for w in kept}
        pending = [m for m in pending if id(m) in keep or m.line in own]
    for m in pending:
        frames.setdefault(m.sig.id, m.before)


def _scan_parallel(
    src: Source, catalog: Catalog, options: Options, collector: EnvironmentCollector, on_bytes: Callable[[int], None] | None
) -> Part | None:
    """A big plain file scanned by several processes (parallel.py), merged into one Part; None when not worth
    it or not possible here (then the caller scans it in this process)."""
    if src.path is None or options.jobs == 1:  # stdin, pasted text: no module to import
        return None
    from . import parallel

    jobs = parallel.jobs_for(src, options.jobs)
    if jobs < 2:
        return None
    # a fresh matcher and collector for the workers: each forked process gets its own copy of their state
    worker_collector = EnvironmentCollector()
    worker_matcher = Matcher(catalog, probes=worker_collector.probes(), timeout=options.timeout)
    path = src.path
    ranges = parallel.plan(path, worker_matcher.before + worker_matcher.after + MARGIN_LINES, jobs)
    if ranges is None:
        return None

    def work(r: parallel.Range, progress: Callable[[int], None]) -> tuple[Part, Any, int]:
        worker_collector.source = src.name
        with open(path, "rb") as fh:
            first = 1 + parallel.newlines(fh, r.read_from, r.start)  # the first own line, counted from read_from
            own = range(first, first + parallel.lines(fh, r.start, r.end))
        stats, kept = ReadStats(), ReadStats(bytes_read=r.end - r.start, lines=len(own))
        blocks = parallel.own_blocks(read_range(path, r.read_from, r.read_to, stats, _capped(progress, r.end - r.start)), stats, own, kept)
        part = scan_part(blocks, src.name, worker_matcher, stats, own, tail=r.read_to == ranges[-1].read_to)
        part.stats = kept
        part.frames = {k: list(v) for k, v in part.frames.items()}  # plain lists: the frames cross the process boundary
        return part, worker_collector.env, first - 1

    results = parallel.run(ranges, work, on_bytes)
    if results is None:
        return None
    return _merge_parts(results, catalog, collector)


def _capped(progress: Callable[[int], None], total: int) -> Callable[[int], None]:
    """``progress`` told of at most ``total`` bytes (a worker reads a little more than its range)."""
    left = [total]

    def told(n: int) -> None:
        n = min(n, left[0])
        left[0] -= n
        if n:
            progress(n)

    return told


def _merge_parts(results: list[tuple[Part, Any, int]], catalog: Catalog, collector: EnvironmentCollector) -> Part:
    """Join the parts of consecutive ranges: shift line numbers (each worker counted from the first line it
    read, ``skipped`` lines before its own), add counts, keep the earliest first lines."""
    merged: Part | None = None
    offset = 0
    for part, env, skipped in results:
        _shift(part, env, offset - skipped, catalog, collector)
        if merged is None:
            merged = part
        else:
            _join(merged, part)
        offset += part.stats.lines
    assert merged is not None
    return merged


def _shift(part: Part, env: Any, offset: int, catalog: Catalog, collector: EnvironmentCollector) -> None:
    """A worker's part and versions with ``offset`` added to their line numbers; its findings' signatures
    are the catalog's own again (not the unpickled copies)."""
    for f in part.findings.values():
        f.signature = catalog.get(f.signature.id) or f.signature
        f.first = replace(f.first, line=f.first.line + offset, end_line=f.first.end_line + offset)
        f.last = replace(f.last, line=f.last.line + offset, end_line=f.last.end_line + offset)
    for miss in part.misses:
        miss.line += offset
    for component, version in env.versions.items():
        where = env.sources.get(component, "")
        name, _, line = where.rpartition(":")
        if line.isdigit():
            where = f"{name}:{int(line) + offset}"
        collector.env.set(component, version, where, env.ranks.get(component, 50))
    part.edges.first_base += offset
    part.edges.last_base += offset


def _join(merged: Part, part: Part) -> None:
    """``part`` (the next range) added to ``merged``."""
    for sid, f in part.findings.items():
        have = merged.findings.get(sid)
        if have is None:
            merged.findings[sid] = f
        else:
            merge_into(have, f)
    for sid, frame in part.frames.items():
        merged.frames.setdefault(sid, frame)
    per_sig: dict[str, int] = {}
    for miss in merged.misses:
        per_sig[miss.id] = per_sig.get(miss.id, 0) + 1
    for miss in part.misses:
        if per_sig.get(miss.id, 0) < MAX_NEAR_MISSES_PER_SIG and len(merged.misses) < 50:
            per_sig[miss.id] = per_sig.get(miss.id, 0) + 1
            merged.misses.append(miss)
    merged.stats.lines += part.stats.lines
    merged.stats.bytes_read += part.stats.bytes_read
    merged.stats.cut_lines += part.stats.cut_lines
    merged.edges.last, merged.edges.last_base = part.edges.last, part.edges.last_base
    merged.warnings += [w for w in part.warnings if w not in merged.warnings]


class _Edges:
    """Keeps the first and the last block of a source to show error-looking lines when nothing matched."""

    def __init__(self) -> None:
        self.first: bytes | None = None
        self.last: bytes | None = None
        self.first_base = 1
        self.last_base = 1
        self._lines = 0

    def watch(self, blocks: Iterator[Block]) -> Iterator[Block]:
        for block in blocks:
            if self.first is None:
                self.first = block.data
            self.last = block.data
            self.last_base = self._lines + 1
            self._lines += block.lines
            yield block

    def error_lines(self, source: str) -> list[tuple[str, int, str]]:
        out: list[tuple[str, int, str]] = []
        chunks = [(self.first, 1)] if self.first is not None else []
        if self.last is not None and self.last is not self.first:
            chunks.append((self.last, self.last_base))
        for data, base in chunks:
            cut = 0 if base == 1 else max(0, len(data) - (1 << 20))
            if cut:
                cut = data.find(b"\n", cut - 1) + 1  # from a line start
            piece = data[cut : cut + (1 << 20)]
            line, prev, pos = base + data.count(b"\n", 0, cut), 0, 0
            while (m := _ERRORISH.search(piece, pos)) is not None:
                start = piece.rfind(b"\n", 0, m.start()) + 1
                end = piece.find(b"\n", m.end())
                end = len(piece) if end < 0 else end
                line += piece.count(b"\n", prev, start)
                prev = start
                clean, _ = normalize_line(piece[start:end].decode("utf-8", "replace"))
                if clean.strip():
                    out.append((source, line, clean.strip()[:300]))
                pos = end + 1
        return out[-MAX_ERROR_LINES:]
