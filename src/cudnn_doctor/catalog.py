"""Load the knowledge base: built-in and user signature files, strictly validated, with a compiled cache.

A plain ``diagnose`` must start fast, so the parsed and validated set, with its compiled patterns, is kept
in a signed cache (cache.py) keyed on every input that shapes it (_fingerprint): YAML parsing, JSON Schema
validation and regex compilation, the slow parts, only run when one of them changed.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .errors import SignatureError
from .model import (
    Case,
    Cause,
    Context,
    DeadEnd,
    DifferentialEntry,
    Example,
    GraphEdge,
    Reference,
    Signature,
    Workaround,
)

ENV_SIGNATURES = "CUDNN_DOCTOR_SIGNATURES"
SIGNATURE_SUFFIXES = (".yaml", ".yml", ".json")
EVIDENCE_FILE = "_evidence.yaml"
MAX_FILE_BYTES = 1 << 20
MAX_NODES = 50_000
_CACHE_FORMAT = 9
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "signature.schema.json"


@dataclass(slots=True)
class Catalog:
    """The signatures in force (user ones replace built-in ones with the same id) and evidence sets."""

    signatures: list[Signature] = field(default_factory=list)
    evidence: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, sig_id: str) -> Signature | None:
        for sig in self.signatures:
            if sig.id == sig_id:
                return sig
        return None

    @property
    def by_id(self) -> dict[str, Signature]:
        return {s.id: s for s in self.signatures}


def builtin_dir() -> Path:
    """Where the built-in signatures are: inside the wheel, or the repository's signatures/ folder."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_signatures", here.parents[1] / "signatures"):
        if candidate.is_dir():
            return candidate
    raise SignatureError(["built-in signatures not found: the installation is incomplete (reinstall cudnn-doctor)"])


def signature_files(root: Path) -> list[Path]:
    """Signature files under a directory (or the file itself); names starting with '_' are not signatures."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise SignatureError([f"{root}: no such signature file or directory"])
    if not os.access(root, os.R_OK | os.X_OK):
        raise SignatureError([f"{root}: cannot read this signature directory (permission denied)"])
    files = [
        p
        for p in root.rglob("*")
        if p.suffix in SIGNATURE_SUFFIXES and p.is_file() and not any(part.startswith(("_", ".")) for part in p.relative_to(root).parts)
    ]
    return sorted(files)


# --------------------------------------------------------------------------- parsing


def _yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_record(path: Path) -> Any:
    """Parse one YAML or JSON file. Raises SignatureError with the path and what is wrong."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SignatureError([f"{path}: file is {size} bytes; a signature file may be at most {MAX_FILE_BYTES}"])
        data = path.read_bytes()
    except OSError as exc:
        raise SignatureError([f"{path}: cannot read: {exc.strerror or exc}"]) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SignatureError([f"{path}: not UTF-8 text (byte {exc.start})"]) from exc
    try:
        if path.suffix == ".json":
            import json

            record = json.loads(text)
        else:
            import yaml

            record = yaml.load(text, Loader=_yaml_loader())
    except RecursionError as exc:
        raise SignatureError([f"{path}: nested too deeply"]) from exc
    except Exception as exc:  # yaml.YAMLError, json.JSONDecodeError
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f"line {mark.line + 1}, column {mark.column + 1}: "
        elif hasattr(exc, "lineno"):
            where = f"line {exc.lineno}, column {exc.colno}: "
        reason = getattr(exc, "problem", None) or getattr(exc, "msg", None) or str(exc).splitlines()[0]
        raise SignatureError([f"{path}: {where}syntax error: {reason}"]) from exc
    _check_size(path, record)
    return record


def _check_size(path: Path, record: Any) -> None:
    """Refuse alias bombs and absurdly nested documents before anything walks them."""
    stack, seen = [(record, 0)], 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES or depth > 50:
            raise SignatureError([f"{path}: document too large or nested too deeply (YAML aliases?)"])
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
            stack.extend((k, depth + 1) for k in node if not isinstance(k, str))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


_VALIDATOR: Any = None


def _validator() -> Any:
    global _VALIDATOR
    if _VALIDATOR is None:
        import json

        from jsonschema import Draft202012Validator

        schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
        _VALIDATOR = Draft202012Validator(schema)
    return _VALIDATOR


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_problems(path: Path, record: Any) -> list[str]:
    """Every JSON Schema violation as 'path: $.field: message'."""
    if not isinstance(record, dict):
        return [f"{path}: $: expected a mapping (one signature per file), got {type(record).__name__}"]
    problems = []
    for err in sorted(_validator().iter_errors(record), key=lambda e: list(map(str, e.absolute_path))):
        msg = err.message
        if len(msg) > 200:
            msg = msg[:200] + "..."
        if err.validator == "additionalProperties":
            msg += " (see docs/signature-format.md for the fields)"
        problems.append(f"{path}: {_json_path(err.absolute_path)}: {msg}")
    return problems


# --------------------------------------------------------------------------- building


def _refs(items: Any) -> tuple[Reference, ...]:
    out = []
    for item in items or ():
        if isinstance(item, str):
            out.append(Reference(url=item))
        elif isinstance(item, dict):
            out.append(Reference(url=item.get("url", ""), title=item.get("title", "")))
    return tuple(out)


def _edges(items: Any) -> tuple[GraphEdge, ...]:
    out = []
    for item in items or ():
        if isinstance(item, str):
            out.append(GraphEdge(id=item))
        elif isinstance(item, dict):
            out.append(GraphEdge(id=item["id"], how_to_tell=item.get("how_to_tell", "") or item.get("note", "")))
    return tuple(out)


def _cases(value: Any, key: str = "text") -> tuple[Case, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (Case(text=value),)
    return tuple(Case(text=c[key], when=c.get("when"), text_zh=c.get(f"{key}_zh", "")) for c in value)


def _default_window(pattern: str) -> tuple[int, int]:
    spans_lines = "\\n" in pattern or "[\\s\\S]" in pattern or "\\s" in pattern or "\n" in pattern
    return (30, 30) if spans_lines else (2, 2)


def build_signature(record: dict[str, Any], path: Path, builtin: bool) -> Signature:
    """A Signature from a schema-valid record."""
    pattern = record["regex"]
    flags = tuple(record.get("regex_flags") or ())
    win = record.get("window") or {}
    d_before, d_after = _default_window(pattern)
    if "DOTALL" in flags:
        d_before, d_after = max(d_before, 30), max(d_after, 30)
    ctx = record.get("context") or {}
    graph = record.get("transition_graph") or {}
    prefilter = tuple(record.get("prefilter") or ())
    return Signature(
        id=record["id"],
        title=record.get("title") or record["signature"][:120],
        framework=record.get("framework") or _guess_framework(record),
        scope=record.get("scope") or "cudnn",
        severity=record.get("severity") or "error",
        priority=int(record.get("priority", 50)),
        labels=tuple(record.get("labels") or ()),
        signature=record["signature"],
        regex=pattern,
        flags=flags,
        prefilter=prefilter,
        window_before=int(win.get("before", d_before)),
        window_after=int(win.get("after", d_after)),
        context=Context(
            require_any=tuple(ctx.get("require_any") or ()),
            exclude_any=tuple(ctx.get("exclude_any") or ()),
            support_any=tuple(ctx.get("support_any") or ()),
            lines_before=int(ctx.get("lines_before", 40)),
            lines_after=int(ctx.get("lines_after", 10)),
        ),
        explain=_explain(record),
        derived=tuple((name, _cases(cases, "value")) for name, cases in (record.get("derived") or {}).items()),
        checks=_cases(record.get("checks"), "message"),
        root_cause=record["root_cause"],
        dead_ends=tuple(
            DeadEnd(
                action=d.get("action") or "",
                why_fails=d["why_fails"],
                fail_rate=d.get("fail_rate"),
                verification_tier=d.get("verification_tier") or record.get("verification_tier"),
                condition=d.get("condition") or "",
                action_zh=d.get("action_zh", ""),
                why_fails_zh=d.get("why_fails_zh", ""),
                sources=_refs(d.get("sources")),
            )
            for d in record.get("dead_ends") or ()
        ),
        workarounds=tuple(
            Workaround(
                action=w["action"],
                how=w.get("how") or "",
                success_rate=w.get("success_rate"),
                verification_tier=w.get("verification_tier") or record.get("verification_tier"),
                effort=w.get("effort"),
                condition=w.get("condition") or "",
                applies=tuple(sorted((w.get("applies") or {}).items())),
                action_zh=w.get("action_zh", "") or _zh_list(record, i),
                how_zh=w.get("how_zh", ""),
                sources=_refs(w.get("sources")),
            )
            for i, w in enumerate(record.get("workarounds") or ())
        ),
        applies=tuple(sorted((record.get("applies") or {}).items())),
        fixed_in=tuple(sorted((record.get("fixed_in") or {}).items())),
        leads_to=_edges(graph.get("leads_to")),
        preceded_by=_edges(graph.get("preceded_by")),
        confused_with=_edges(graph.get("frequently_confused_with")),
        references=_refs(record.get("references")) + (
            (Reference(url=record["official_doc_url"], title=record.get("official_doc_section") or "Official documentation"),)
            if record.get("official_doc_url")
            else ()
        ),
        verification_tier=record.get("verification_tier"),
        examples=tuple(
            Example(text=e["text"], name=e.get("name", f"example {i + 1}"), captures=tuple((e.get("captures") or {}).items()))
            for i, e in enumerate(record.get("examples") or ())
        ),
        counter_examples=tuple(
            Example(text=e["text"], name=e.get("name", f"counter-example {i + 1}"), why=e.get("why", ""))
            for i, e in enumerate(record.get("counter_examples") or ())
        ),
        path=str(path),
        builtin=builtin,
        raw=record,
        cause=_cause(record.get("cause")),
        differential=tuple(_differential_entry(e) for e in record.get("differential") or ()),
    )


def _cause(value: Any) -> Cause | None:
    if not isinstance(value, dict):
        return None
    return Cause(
        of=tuple(value.get("of") or ()),
        threads=tuple(value.get("threads") or ()),
        evidence=value.get("evidence", ""),
        check=value.get("check", ""),
        family=value.get("family", ""),
        check_zh=value.get("check_zh", ""),
    )


def _differential_entry(e: dict[str, Any]) -> DifferentialEntry:
    return DifferentialEntry(
        cause=e["cause"],
        check=e["check"],
        signature=e.get("signature", ""),
        rnn=e.get("rnn"),
        threads=tuple(e.get("threads") or ()),
        applies=tuple(sorted((e.get("applies") or {}).items())),
        ruled_out_by=tuple(e.get("ruled_out_by") or ()),
        cause_zh=e.get("cause_zh", ""),
        check_zh=e.get("check_zh", ""),
    )


def _explain(record: dict[str, Any]) -> tuple[Case, ...]:
    """``explain`` cases; a top-level ``explain_zh`` is the Chinese of a one-string ``explain``, or of the
    cases without a condition (the fallback) that carry no ``text_zh`` of their own."""
    import dataclasses

    cases = _cases(record.get("explain"))
    zh = record.get("explain_zh")
    if not zh:
        return cases
    return tuple(dataclasses.replace(c, text_zh=zh) if not c.when and not c.text_zh else c for c in cases)


def _zh_list(record: dict[str, Any], index: int) -> str:
    items = record.get("workarounds_zh") or []
    return items[index] if index < len(items) and isinstance(items[index], str) else ""


def _guess_framework(record: dict[str, Any]) -> str:
    text = " ".join(str(record.get(k, "")) for k in ("signature", "domain", "id")).lower()
    for needle, name in (("torch", "pytorch"), ("tensorflow", "tensorflow"), ("keras", "keras"), ("jax", "jax")):
        if needle in text:
            return name
    return "any"


# --------------------------------------------------------------------------- semantic checks


def semantic_problems(sig: Signature, evidence: dict[str, tuple[str, ...]]) -> list[str]:
    """Problems the schema cannot see: regexes that do not compile, bad conditions and templates."""
    from .conditions import ConditionError, compile_condition, template_fields
    from .patterns import compile_pattern

    problems: list[str] = []
    where = sig.path
    try:
        compiled = compile_pattern(sig.regex, sig.flags)
    except Exception as exc:  # regex.error
        problems.append(f"{where}: $.regex: does not compile: {exc}")
        compiled = None
    for key, items in (("require_any", sig.context.require_any), ("exclude_any", sig.context.exclude_any), ("support_any", sig.context.support_any)):
        for i, item in enumerate(items):
            if item.startswith("@"):
                if item[1:] not in evidence:
                    problems.append(f"{where}: $.context.{key}[{i}]: unknown evidence set {item!r} (known: {', '.join(sorted(evidence)) or 'none'})")
                continue
            try:
                compile_pattern(item, ("IGNORECASE",))
            except Exception as exc:
                problems.append(f"{where}: $.context.{key}[{i}]: does not compile: {exc}")
    groups = set(compiled.groupindex) if compiled is not None else set()
    names = groups | {name for name, _ in sig.derived}
    blocks: list[tuple[str, tuple[Case, ...]]] = [("explain", sig.explain), ("checks", sig.checks)]
    blocks += [(f"derived.{name}", cases) for name, cases in sig.derived]
    for key, cases in blocks:
        for i, case in enumerate(cases):
            if case.when:
                try:
                    compile_condition(case.when)
                except ConditionError as exc:
                    problems.append(f"{where}: $.{key}[{i}].when: {exc}")
            for suffix, text in (("", case.text), ("_zh", case.text_zh)):
                try:
                    unknown = [f for f in template_fields(text) if f not in names]
                except ValueError as exc:
                    problems.append(f"{where}: $.{key}[{i}]{suffix}: bad template: {exc}")
                    continue
                if unknown and compiled is not None:
                    problems.append(f"{where}: $.{key}[{i}]{suffix}: placeholder(s) {', '.join(unknown)} are not named groups of the regex")
    if compiled is not None:
        problems += _placeholder_problems(sig, names)
    return problems


_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)\}(?!\})")
TEMPLATE_FIELDS = ("explain", "explain_zh", "checks", "derived", "root_cause", "root_cause_zh")
# fields that quote logs or framework source verbatim (braces there are the framework's, not ours)
_QUOTED_FIELDS = ("regex", "examples", "counter_examples", "id", "context", "prefilter", "signature", "wordings")


def _placeholder_problems(sig: Signature, names: set[str]) -> list[str]:
    """Template fields (root_cause here; explain, checks and derived above) may name only captures and
    derived values; any other text field is printed as written, so a capture's name in braces there would
    reach the user as a literal '{lib}'."""
    problems = []
    for key in ("root_cause", "root_cause_zh", "explain_zh"):
        text = sig.raw.get(key)
        if isinstance(text, str):
            unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} - names)
            if unknown:
                problems.append(f"{sig.path}: $.{key}: placeholder(s) {', '.join(unknown)} are neither named groups of the regex nor derived values")

    def walk(node: Any, path: str) -> None:
        if isinstance(node, str):
            used = sorted({m.group(1) for m in _PLACEHOLDER.finditer(node)} & names)
            if used:
                problems.append(f"{sig.path}: {path}: {{{'}, {'.join(used)}}} would be printed literally: only "
                                f"{', '.join(TEMPLATE_FIELDS)} are filled from the log")
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    for key, value in sig.raw.items():
        if key not in TEMPLATE_FIELDS and key not in _QUOTED_FIELDS:
            walk(value, f"$.{key}")
    return problems


# --------------------------------------------------------------------------- cache


# the modules whose code shapes the cached catalog and its compiled patterns (an edited checkout: a new key)
_SHAPING_MODULES = ("catalog", "model", "patterns", *(f"match/{m}" for m in ("__init__", "regexinfo", "prefilter", "lines", "evidence", "results", "matcher")), "environment", "tracebacks", "conditions", "cache")


def _fingerprint(files: Sequence[Path], extra: Sequence[Path]) -> str:
    """Every input that shapes the cached catalog: each signature file's path, size and mtime, the schema
    and evidence files, cudnn-doctor's own modules (an edited checkout), its version, the Python and
    `regex` versions (the cache holds compiled `regex` programs) and the cache format."""
    import regex

    here = Path(__file__).resolve().parent
    parts = [f"{__version__}:{_CACHE_FORMAT}:{sys.implementation.cache_tag}:{sys.version}:regex {regex.__version__}"]
    code = [here / f"{name}.py" for name in _SHAPING_MODULES]
    for p in [*files, *extra, *code]:
        try:
            st = p.stat()
        except OSError:
            continue
        parts.append(f"{p}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(parts)


# --------------------------------------------------------------------------- loading


def _load_evidence(root: Path, problems: list[str]) -> dict[str, tuple[str, ...]]:
    path = root / EVIDENCE_FILE if root.is_dir() else root.parent / EVIDENCE_FILE
    if not path.is_file():
        return {}
    try:
        data = read_record(path)
    except SignatureError as exc:
        problems.extend(exc.problems)
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in data.values()):
        problems.append(f"{path}: $: expected a mapping of set name -> list of regexes")
        return {}
    return {str(k): tuple(v) for k, v in data.items()}


def load_dir(root: Path, builtin: bool) -> tuple[list[Signature], dict[str, tuple[str, ...]], list[str]]:
    """Load every signature under ``root``; returns (signatures, evidence sets, problems). Never stops early."""
    problems: list[str] = []
    evidence = _load_evidence(root, problems)
    sigs: list[Signature] = []
    for path in signature_files(root):
        sig = load_file(path, builtin, problems)
        if sig is not None:
            sigs.append(sig)
    return sigs, evidence, problems


def load_file(path: Path, builtin: bool, problems: list[str]) -> Signature | None:
    """Read, schema-check and build one signature file; its problems are appended to ``problems``."""
    try:
        record = read_record(path)
    except SignatureError as exc:
        problems.extend(exc.problems)
        return None
    found = schema_problems(path, record)
    if found:
        problems.extend(found)
        return None
    return build_signature(record, path, builtin)


def load_catalog(
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    *,
    builtin: bool = True,
    use_env: bool = True,
    use_cache: bool = True,
) -> Catalog:
    """Load the built-in knowledge base plus user signature directories.

    User directories come from ``extra_dirs`` and the ``CUDNN_DOCTOR_SIGNATURES`` environment variable
    (os.pathsep-separated). A user signature with a built-in id replaces it. Raises SignatureError listing
    every problem in every file.
    """
    roots: list[tuple[Path, bool]] = []
    if builtin:
        roots.append((builtin_dir(), True))
    user = [Path(d) for d in extra_dirs]
    if use_env and os.environ.get(ENV_SIGNATURES):
        user += [Path(d) for d in os.environ[ENV_SIGNATURES].split(os.pathsep) if d]
    roots += [(p, False) for p in user]
    if not roots:
        raise SignatureError(["no signatures: --no-builtin needs at least one --signatures DIR"])

    files: list[Path] = []
    extras: list[Path] = []
    for root, is_builtin in roots:
        found = signature_files(root)
        if not found and not is_builtin:
            raise SignatureError([f"{root}: no signature files here (*.yaml, *.yml, *.json; names starting with '_' or '.' are skipped)"])
        files += found
        ev = (root if root.is_dir() else root.parent) / EVIDENCE_FILE
        extras.append(ev)
    extras.append(SCHEMA_PATH)
    key = _fingerprint(files, extras)
    if use_cache:
        from . import cache

        cached = cache.load(key)
        if cached is not None:
            catalog, patterns = cached
            from .patterns import restore

            restore(patterns)
            return catalog

    by_id: dict[str, Signature] = {}
    evidence: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    loaded: list[list[Signature]] = []
    for root, is_builtin in roots:
        sigs, ev, probs = load_dir(root, is_builtin)
        evidence.update(ev)
        problems += probs
        loaded.append(sigs)
    for sigs in loaded:
        seen_here: dict[str, str] = {}
        for sig in sigs:
            if sig.id in seen_here:
                problems.append(f"{sig.path}: $.id: duplicate id {sig.id!r} (also in {seen_here[sig.id]})")
                continue
            seen_here[sig.id] = sig.path
            by_id[sig.id] = sig  # later roots (user dirs) replace built-in ids
    for sig in by_id.values():
        problems += semantic_problems(sig, evidence)
    if problems:
        raise SignatureError(problems)
    catalog = Catalog(signatures=sorted(by_id.values(), key=lambda s: s.id), evidence=evidence)
    if use_cache:  # the same lean catalog whether it came from the files or from the cache
        catalog = _lean(catalog)
        cache.store(key, (catalog, _warm_patterns(catalog)))
    return catalog


def _lean(catalog: Catalog) -> Catalog:
    """The catalog without examples, for the cache: a diagnosis never needs them and they are a third of the
    pickle. ``validate`` reads the files itself; ``show`` re-reads the signature's file."""
    import dataclasses

    def strip(sig: Signature) -> Signature:
        raw = {k: v for k, v in sig.raw.items() if k not in ("examples", "counter_examples")}
        return dataclasses.replace(sig, examples=(), counter_examples=(), raw=raw)

    return Catalog(signatures=[strip(s) for s in catalog.signatures], evidence=catalog.evidence, warnings=catalog.warnings)


def _warm_patterns(catalog: Catalog) -> dict[Any, Any]:
    """Compile everything a diagnose with this catalog needs, for the cache (see patterns.py)."""
    from .environment import DETECTORS, EnvironmentCollector
    from .match import Matcher
    from .patterns import snapshot

    Matcher(catalog, probes=EnvironmentCollector().probes()).warm()
    from . import match, tracebacks
    from .patterns import warm_module

    for detector in DETECTORS:
        _ = detector.regex
    warm_module(tracebacks)
    warm_module(match)
    return snapshot()
