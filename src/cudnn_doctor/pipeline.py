"""The pipeline: input -> normalize -> match -> rank -> Diagnosis. The only module that knows the order."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .catalog import Catalog, load_catalog
from .environment import EnvironmentCollector
from .errors import InputError
from .explain import check_messages, explanation
from .input import Block, ReadStats, Source, read_blocks, text_source
from .match import Matcher, RawMatch
from .model import Diagnosis, Finding, NearMiss
from .normalize import normalize_line
from .rank import (
    CONFIDENCE_THRESHOLD,
    Aggregator,
    apply_versions,
    cluster,
    fold_cascades,
    order,
)
from .tracebacks import user_frame

# what makes a line look like an error (``FooError`` is found by its end), searched in the raw bytes; the
# lookahead on the first letters lets the engine skip most positions, and the line around a hit is taken by
# find/rfind (a leading ``^.*`` would make it try every position of a 1 MiB block as a line start)
_ERRORISH = re.compile(
    rb"(?=[ETCFef])(?:(?:Error|Exception)\b|Traceback \(most recent call last\)|\bCUDNN_STATUS_\w+|Check failed|"
    rb"\bFATAL\b|^[EF]\d{4} |\berror:|\bfailed\b)",
    re.MULTILINE,
)
MAX_ERROR_LINES = 12


@dataclass(slots=True)
class Options:
    lang: str = "en"
    env: Mapping[str, str] = field(default_factory=dict)
    threshold: float = CONFIDENCE_THRESHOLD
    timeout: float = 1.0


def diagnose(
    text: str | bytes,
    *,
    catalog: Catalog | None = None,
    source: str = "<text>",
    lang: str = "en",
    env: Mapping[str, str] | None = None,
) -> Diagnosis:
    """Diagnose a log or traceback held in memory. The library entry point."""
    return diagnose_sources(
        [text_source(text, source)], catalog=catalog, options=Options(lang=lang, env=dict(env or {}))
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
    aggregator = Aggregator()
    frames: dict[tuple[str, str], list[str]] = {}
    for src in sources:
        collector.source = src.name
        stats = ReadStats()
        edges = _Edges()
        pending: list[RawMatch] = []
        try:
            blocks = edges.watch(read_blocks(src, stats, on_bytes))
            for m, miss in matcher.scan_blocks(blocks, src.name):
                if m is not None:
                    pending.append(m)
                    key = (m.source, m.sig.id)
                    if key not in frames:
                        frames[key] = m.before
                elif miss is not None:
                    if len(diagnosis.near_misses) < 50:
                        diagnosis.near_misses.append(NearMiss(miss.sig.id, miss.sig.title, miss.source, miss.line, miss.reason))
                else:  # block end
                    for winner, related in cluster(pending):
                        aggregator.add(winner, related)
                    pending = []
        except InputError as exc:
            if src.from_directory:
                diagnosis.warnings.append(f"skipped {exc}")
            else:
                diagnosis.input_errors.append(str(exc))
            continue
        for winner, related in cluster(pending):
            aggregator.add(winner, related)
        diagnosis.sources.append(src.name)
        diagnosis.lines_read += stats.lines
        diagnosis.bytes_read += stats.bytes_read
        if stats.cut_lines:
            diagnosis.warnings.append(f"{src.name}: {stats.cut_lines} line(s) longer than 64 KiB were cut to their head and tail")
        diagnosis.error_lines += edges.error_lines(src.name)
    if strict_input and diagnosis.input_errors and not diagnosis.sources:
        raise InputError(diagnosis.input_errors[0])
    collector.override(dict(options.env))
    versions = collector.env.versions
    diagnosis.environment = collector.env.to_record()
    diagnosis.warnings += matcher.warnings
    findings: list[Finding] = list(aggregator.findings.values())
    for f in findings:
        f.explanation = explanation(f.signature, f.captures, options.lang)
        f.checks = check_messages(f.signature, f.captures, options.lang)
        apply_versions(f, versions)
        frame = user_frame(frames.get((f.first.source, f.id), []))
        f.user_frame = frame.to_record() if frame else None
    confident = [f for f in findings if f.confidence >= options.threshold]
    diagnosis.below_threshold = order([f for f in findings if f.confidence < options.threshold])
    diagnosis.findings = order(fold_cascades(order(confident), catalog.get))
    matched = {f.id for f in findings}
    diagnosis.near_misses = [n for n in diagnosis.near_misses if n.id not in matched]
    return diagnosis


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
