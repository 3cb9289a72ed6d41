"""The commands about the knowledge base: ``show``, ``list``, ``search``, ``validate``, ``schema``.

Each takes the namespace options.py parsed and returns the exit code; a DoctorError is one line and exit
code 2 (entry.py).
"""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path
from typing import Any

from ..errors import SignatureError, UsageError
from .commands import (
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_OK,
    color,
    err,
    load_catalog_or_report,
    warnings_said,
    write,
)
from .options import suggest, to_path


def cmd_show(ns: Namespace) -> int:
    """Show one signature's full record."""
    if ns.format not in ("terminal", "json", "yaml"):
        raise UsageError(f"--format must be terminal, json or yaml, not {ns.format!r}")
    catalog = load_catalog_or_report(ns.signatures, ns.no_builtin)
    sig = catalog.get(ns.sig_id)
    if sig is None:
        close = [s.id for s in catalog.signatures if ns.sig_id.split("/")[-1] in s.id][:5]
        hint = f" (did you mean: {', '.join(close)}?)" if close else " (see `cudnn-doctor list`)"
        raise UsageError(f"no signature with id {ns.sig_id!r}{hint}")
    from ..kb.build import build_signature
    from ..kb.load import read_record

    record = read_record(Path(sig.path))  # the file as written (the cached catalog has no examples)
    if isinstance(record, dict):
        sig = build_signature(record, Path(sig.path), sig.builtin)
    if ns.format == "json":
        import json

        write(json.dumps(dict(sig.raw), indent=2, ensure_ascii=False) + "\n", None)
    elif ns.format == "yaml":
        import yaml

        write(yaml.safe_dump(dict(sig.raw), sort_keys=False, allow_unicode=True, width=110), None)
    else:
        from ..rank.differential import candidates, causes_of
        from ..render.show import render_signature

        differential = candidates(sig, catalog.by_id, causes_of(catalog.signatures))
        write(render_signature(sig, color=color(), differential=differential), None)
    return EXIT_OK


def cmd_list(ns: Namespace) -> int:
    """List signatures (id, framework, scope, title)."""
    if ns.format not in ("terminal", "json"):
        raise UsageError(f"list: --format must be terminal or json, not {ns.format!r}")
    catalog = load_catalog_or_report(ns.signatures, ns.no_builtin, ns.ignore or ())
    rows = _filtered(catalog.signatures, ns)
    if ns.format == "json":
        import json

        data = [{"id": s.id, "framework": s.framework, "scope": s.scope, "severity": s.severity, "title": s.title} for s in rows]
        write(json.dumps(data, indent=2, ensure_ascii=False) + "\n", None)
        return EXIT_OK
    from ..render.show import render_list

    write(render_list(rows, color=color(), terminal=sys.stdout.isatty()), None)
    return EXIT_OK


def _filtered(signatures: list[Any], ns: Namespace) -> list[Any]:
    """The signatures ``list``'s --framework, --scope and --severity keep (a value none has is a mistake)."""
    wanted = {"framework": ns.framework, "scope": ns.scope, "severity": ns.severity}
    known = {"framework": {s.framework for s in signatures}, "scope": {"rnn", "cudnn", "cuda"}, "severity": {"error", "warning"}}
    for name, value in wanted.items():
        if value is not None and value not in known[name]:
            choices = sorted(known[name])
            raise UsageError(f"list: unknown --{name} {value!r}{suggest(value, choices)} (known: {', '.join(choices)})")
    return [s for s in signatures if all(v is None or getattr(s, k) == v for k, v in wanted.items())]


def cmd_search(ns: Namespace) -> int:
    """Find signatures by text (all words must occur)."""
    from ..kb.compiled import load_catalog
    from ..kb.search import search_signatures
    from ..render.show import render_list

    try:  # uncached: the search also looks at the signatures' examples
        catalog = load_catalog([str(p) for p in ns.signatures or []], builtin=not ns.no_builtin, use_cache=False)
    except SignatureError:
        catalog = load_catalog_or_report(ns.signatures, ns.no_builtin)
    hits = search_signatures(catalog, ns.words)
    if not hits:
        err(f"no signature mentions {' '.join(ns.words)!r}")
        return EXIT_FOUND
    write(render_list(hits, color=color(), terminal=sys.stdout.isatty()), None)
    return EXIT_OK


def cmd_validate(ns: Namespace) -> int:
    """Check signature files: schema, regexes, examples, counter-examples, unique ids."""
    from .validate import validate_paths

    prefixes: list[str] = []
    from .progress import progress_for

    with warnings_said(), progress_for("validating", None, "signatures") as progress:
        problems, warnings, count = validate_paths(list(ns.paths), strict=ns.strict, prefixes=prefixes, progress=progress)
    for line in prefixes:  # how short a cut message may be and still be read as the signature
        sys.stdout.write(f"prefix: {line}\n")
    for w in warnings:
        sys.stderr.write(f"warning: {w}\n")
    for p in problems:
        err(p)
    if problems:
        sys.stderr.write(f"{len(problems)} problem(s) in {count} signature(s)\n")
        return EXIT_ERROR
    sys.stdout.write(f"ok: {count} signature(s) valid\n")
    return EXIT_OK


def cmd_schema(ns: Namespace) -> int:
    """Print a JSON Schema: the signature file format or the JSON report."""
    from importlib.resources import files

    if ns.which not in ("signature", "output"):
        raise UsageError(f"schema: which schema, signature or output, not {ns.which!r}")
    write(files("cudnn_doctor").joinpath("data", f"{ns.which}.schema.json").read_text("utf-8"), to_path(ns.output))
    return EXIT_OK
