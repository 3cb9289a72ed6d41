"""Load the knowledge base: built-in and user signature files, read safely, schema-validated and built into
the typed model (model.py), with the checks the schema cannot make (regexes compile, templates name
captures). Data only: the compiled, cached catalog a diagnosis uses is compiled.py's ``load_catalog``.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import SignatureError
from ..model import Signature

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

ENV_SIGNATURES = "CUDNN_DOCTOR_SIGNATURES"
SIGNATURE_SUFFIXES = (".yaml", ".yml", ".json")
EVIDENCE_FILE = "_evidence.yaml"
NO_FILES = "no signature files here (*.yaml, *.yml, *.json; names starting with '_' or '.' are skipped)"
MAX_FILE_BYTES = 1 << 20
MAX_NODES = 50_000
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCHEMA_FILE = os.path.join(PACKAGE_DIR, "data", "signature.schema.json")


def __getattr__(name: str) -> Any:  # SCHEMA_PATH as a Path, made when asked: start-up does not import pathlib
    if name == "SCHEMA_PATH":
        from pathlib import Path

        return Path(SCHEMA_FILE)
    raise AttributeError(name)


@dataclass(slots=True)
class Catalog:
    """The signatures in force (user ones replace built-in ones with the same id) and evidence sets."""

    signatures: list[Signature] = field(default_factory=list)
    evidence: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # the key of the cache entry it was read from, with the signatures it held then (``keyed``, ``base_key``);
    # not an argument, so a ``dataclasses.replace`` copy has none
    _keyed: tuple[str, tuple[Signature, ...]] | None = field(default=None, init=False, repr=False, compare=False)

    def keyed(self, key: str) -> None:
        """Record the key of the cache entry this catalog's signatures were read from (load_catalog)."""
        self._keyed = (key, tuple(self.signatures))

    def base_key(self, sigs: Sequence[Signature]) -> str | None:
        """The cache entry's key when ``sigs`` are the signatures read from it (the very objects, in order):
        what is derived from all of them is that entry's, and needs no key of their contents. None otherwise
        (a changed copy, a subset, a catalog not from the cache)."""
        if self._keyed is None:
            return None
        key, read = self._keyed
        return key if len(sigs) == len(read) and all(map(operator.is_, sigs, read)) else None

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
    from pathlib import Path

    return Path(builtin_root())


def builtin_root() -> str:
    """builtin_dir as a path string (a pasted traceback's start-up does not import pathlib)."""
    here = PACKAGE_DIR
    for candidate in (os.path.join(here, "_signatures"), os.path.join(os.path.dirname(os.path.dirname(here)), "signatures")):
        if os.path.isdir(candidate):
            return candidate
    raise SignatureError(["built-in signatures not found: the installation is incomplete (reinstall cudnn-doctor)"])


def signature_files(root: Path) -> list[Path]:
    """Signature files under a directory (or the file itself); names starting with '_' are not signatures."""
    from pathlib import Path

    return [Path(p) for p in signature_paths(root)]


def signature_paths(root: str | Path) -> list[str]:
    """signature_files as path strings, in the same order: every start lists the knowledge base to key the
    catalog cache, and 2,040 Path objects (the 10x base) cost more than listing and stat-ing the files."""
    if os.path.isfile(root):
        return [str(root)]
    if not os.path.isdir(root):
        raise SignatureError([f"{root}: no such signature file or directory"])
    if not os.access(root, os.R_OK | os.X_OK):
        raise SignatureError([f"{root}: cannot read this signature directory (permission denied)"])
    files: list[str] = []
    _scan_dir(str(root), files)
    # Path order (component by component), by a key computed once per file
    return sorted(files, key=_path_key)


def _path_key(path: str) -> tuple[str, ...]:
    path = os.path.normcase(path)  # on Windows also '/' -> '\\'
    return tuple(path.split(os.sep))


def _scan_dir(folder: str, out: list[str]) -> None:
    """The signature files under ``folder``, as Path.rglob found them (symlinked folders not followed) but
    with scandir, whose listing says which entry is a file: every start-up lists the built-in base to
    fingerprint the catalog cache."""
    try:
        listing = os.scandir(folder)
    except PermissionError:  # as rglob: a folder that cannot be listed is passed over
        return
    with listing as entries:
        for entry in entries:
            if entry.name.startswith(("_", ".")):
                continue
            if entry.is_dir(follow_symlinks=False):
                _scan_dir(entry.path, out)
            elif os.path.splitext(entry.name)[1] in SIGNATURE_SUFFIXES and _is_file(entry):
                out.append(entry.path)


class SkippedFileWarning(UserWarning):
    """A file of a signature directory that cannot be read as one (a symbolic link loop) and was skipped."""


def _is_file(entry: os.DirEntry[str]) -> bool:
    """entry.is_file(), with a symbolic link loop (or another link that cannot be followed) skipped with a
    warning naming it instead of an OSError out of the loader."""
    try:
        return entry.is_file()
    except OSError as exc:
        import warnings

        warnings.warn(f"{entry.path}: skipped: {exc.strerror or exc}", SkippedFileWarning, stacklevel=2)
        return False


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

        with open(SCHEMA_FILE, encoding="utf-8") as fh:
            schema = json.loads(fh.read())
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


# --------------------------------------------------------------------------- loading


def evidence_path(root: str | Path) -> Path:
    """The evidence sets beside a signature directory (or beside a single signature file)."""
    from pathlib import Path

    return Path(evidence_file(root))


def evidence_file(root: str | Path) -> str:
    """evidence_path as a path string."""
    return os.path.join(root if os.path.isdir(root) else os.path.dirname(root), EVIDENCE_FILE)


def load_evidence(root: Path, problems: list[str]) -> dict[str, tuple[str, ...]]:
    """The named regex sets (``@rnn``...) of a signature directory; problems appended, {} when absent."""
    path = evidence_path(root)
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


def load_file(path: Path, builtin: bool, problems: list[str]) -> Signature | None:
    """Read, schema-check and build one signature file; its problems are appended to ``problems``."""
    from .build import build_signature  # a cached catalog (compiled.py) needs neither build nor semantic

    try:
        record = read_record(path)
    except SignatureError as exc:
        problems.extend(exc.problems)
        return None
    found = schema_problems(path, record)
    if found:
        problems.extend(found)
        return None
    try:
        return build_signature(record, path, builtin)
    except SignatureError as exc:  # a key the schema allows and the model lacks (build.py)
        problems.extend(exc.problems)
        return None


def iter_signatures(files: Iterable[Path], builtin: bool, problems: list[str]) -> Iterator[Signature]:
    """THE loop over signature files, shared by ``load_catalog`` and ``validate``: each file read (size-capped,
    safe YAML/JSON), schema-checked and built; a file that fails adds its problems and yields nothing."""
    for path in files:
        sig = load_file(path, builtin, problems)
        if sig is not None:
            yield sig


def duplicate_problem(sig: Signature, seen: dict[str, str]) -> str:
    """'' the first time an id is seen (it is recorded in ``seen``), else the problem to report."""
    if sig.id in seen:
        return f"{sig.path}: $.id: duplicate id {sig.id!r} (also in {seen[sig.id]})"
    seen[sig.id] = sig.path
    return ""


# --------------------------------------------------------------------------- the catalog


# a signature directory (or file) and whether it is the built-in base: the built-in one as a string (start-up)
Root = tuple["str | Path", bool]


def catalog_roots(extra_dirs: Sequence[str | os.PathLike[str]], *, builtin: bool, use_env: bool) -> list[Root]:
    """The built-in base, then ``extra_dirs``, then ``CUDNN_DOCTOR_SIGNATURES`` (os.pathsep-separated)."""
    roots: list[Root] = [(builtin_root(), True)] if builtin else []
    user = [*extra_dirs]
    if use_env and os.environ.get(ENV_SIGNATURES):
        user += [d for d in os.environ[ENV_SIGNATURES].split(os.pathsep) if d]
    if user:
        from pathlib import Path

        roots += [(Path(d), False) for d in user]
    if not roots:
        raise SignatureError(["no signatures: --no-builtin needs at least one --signatures DIR"])
    return roots


def root_files(roots: Sequence[Root]) -> list[list[str]]:
    """The signature files of each root (path strings: see signature_paths); a user directory without any is
    an error."""
    out = []
    for root, is_builtin in roots:
        found = signature_paths(root)
        if not found and not is_builtin:
            raise SignatureError([f"{root}: {NO_FILES}"])
        out.append(found)
    return out


def read_catalog(roots: Sequence[Root], files: Sequence[Sequence[Path]]) -> Catalog:
    """The catalog from signature files, uncached (compiled.load_catalog is the cached entry point): a user
    signature with a built-in id replaces it; raises SignatureError listing every problem in every file."""
    from .checks import semantic_problems

    by_id: dict[str, Signature] = {}
    evidence: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    duplicates: list[str] = []
    for (root, is_builtin), paths in zip(roots, files, strict=True):
        evidence.update(load_evidence(root, problems))
        seen_here: dict[str, str] = {}
        for sig in iter_signatures(paths, is_builtin, problems):
            duplicate = duplicate_problem(sig, seen_here)
            if duplicate:
                duplicates.append(duplicate)
            else:
                by_id[sig.id] = sig  # later roots (user dirs) replace built-in ids
    problems += duplicates
    for sig in by_id.values():
        problems += semantic_problems(sig, evidence)
    if problems:
        raise SignatureError(problems)
    return Catalog(signatures=sorted(by_id.values(), key=lambda s: s.id), evidence=evidence)
