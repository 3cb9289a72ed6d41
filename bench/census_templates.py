"""Write `templates:` into signatures from the census (docs/census/*.yaml) where derivation does not see a wording.

A signature's templates are derived from its regex run on its examples (kb/templates.py); a census wording no
example shows (another release's, a rarer branch of the regex) gets no template, and a tolerant reading of it
fails. For every census entry covered by a signature, when none of the signature's derived templates holds the
entry's message (its placeholders filled), the entry's message (the framework's format string) is added to the
signature's `templates:` field. Mechanical and idempotent:

    python bench/census_templates.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from cudnn_doctor.kb.compiled import load_catalog  # noqa: E402
from cudnn_doctor.kb.templates import from_format, words  # noqa: E402
from cudnn_doctor.match.chains import holds  # noqa: E402
from test_census import COVERED, render  # noqa: E402


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def main() -> int:
    catalog = load_catalog(use_cache=False, use_env=False)
    wanted: dict[str, list[str]] = {}
    for _name, entry in COVERED:
        sig = catalog.get(entry["signature"])
        if sig is None or len(from_format(entry["message"])) < 3:
            continue
        said = [w for w, _, _ in words(render(entry))]
        if not any(holds(t[1:], said) for t in sig.templates):
            wanted.setdefault(sig.id, []).append(entry["message"])
    for sig_id, messages in sorted(wanted.items()):
        path = ROOT / "signatures" / f"{sig_id}.yaml"
        text = path.read_text(encoding="utf-8")
        have = list((yaml.safe_load(text) or {}).get("templates") or [])
        new = list(dict.fromkeys(have + messages))
        block = "templates:\n" + "".join(f"  - {_quoted(m)}\n" for m in new)
        if have:
            text = re.sub(r"^templates:\n(?:  - .*\n)+", block, text, flags=re.M)
        else:
            at = re.search(r"^(?:raised_at|prefilter|regex_flags):", text, flags=re.M) or re.search(r"^regex:", text, flags=re.M)
            assert at is not None, path
            nxt = re.compile(r"^[a-z_]+:", re.M).search(text, at.end())
            assert nxt is not None, path
            text = text[: nxt.start()] + block + text[nxt.start() :]
        assert (yaml.safe_load(text) or {}).get("templates") == new, path
        path.write_text(text, encoding="utf-8")
        print(f"{sig_id}: {len(new) - len(have)} template(s) added")
    return 0


if __name__ == "__main__":
    sys.exit(main())
