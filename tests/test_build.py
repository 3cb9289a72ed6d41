"""The loader derives from the model: schema, model and the ignored deadends.dev fields agree."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cudnn_doctor.errors import SignatureError
from cudnn_doctor.kb.build import (
    DEADENDS_COMPAT_FIELDS,
    EDITOR_FIELDS,
    build_signature,
    from_record,
    record_keys,
)
from cudnn_doctor.kb.load import SCHEMA_PATH, read_record, schema_problems
from cudnn_doctor.model import Context, Workaround

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "docs" / "examples" / "seed-record.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text("utf-8"))


def test_every_schema_property_is_read_by_the_loader_or_ignored_on_purpose() -> None:
    properties = set(SCHEMA["properties"])
    assert properties == record_keys() | set(DEADENDS_COMPAT_FIELDS) | set(EDITOR_FIELDS)
    assert not record_keys() & set(DEADENDS_COMPAT_FIELDS)
    assert len(DEADENDS_COMPAT_FIELDS) == len(set(DEADENDS_COMPAT_FIELDS)) == 17


def test_the_compat_fields_are_marked_in_the_schema_and_listed_in_the_docs() -> None:
    marked = [k for k, v in SCHEMA["properties"].items() if "deadends.dev compatibility" in v.get("$comment", "")]
    assert marked == list(DEADENDS_COMPAT_FIELDS)  # and they come last, together
    assert list(SCHEMA["properties"])[-len(marked):] == marked
    doc = (ROOT / "docs" / "signature-format.md").read_text("utf-8")
    section = doc.split("### deadends.dev compatibility fields", 1)[1].split("\n### ", 1)[0]
    last_paragraph = section.strip().rsplit("\n\n", 1)[1]
    listed = re.findall(r"`(\w+)`(?: \(list of `\{[^}]*\}`\))?[,.]", last_paragraph)
    assert listed == list(DEADENDS_COMPAT_FIELDS)


def test_the_compat_fields_are_ignored_by_the_model() -> None:
    record = read_record(SEED)
    assert not schema_problems(SEED, record)
    assert set(DEADENDS_COMPAT_FIELDS) & set(record)  # the seed carries them
    bare = {k: v for k, v in record.items() if k not in DEADENDS_COMPAT_FIELDS}
    bare["framework"] = "pytorch"
    record["framework"] = "pytorch"  # else guessed from `domain`: the one compat use
    with_them, without = build_signature(record, SEED, False), build_signature(bare, SEED, False)
    assert repr(with_them) == repr(without)
    assert with_them.raw["tags"] == record["tags"]  # kept as written (show, search)


def test_a_key_the_model_does_not_know_is_an_error_not_passed_through() -> None:
    record = read_record(SEED)
    record["frobnicate"] = 1
    with pytest.raises(SignatureError, match=r"\$\.frobnicate: the schema allows it but the model has no field"):
        build_signature(record, SEED, False)


def test_a_schema_property_without_a_model_field_is_a_problem_of_its_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from cudnn_doctor.kb import load as catalog

    monkeypatch.setattr(catalog, "schema_problems", lambda path, record: [])  # as if the schema allowed it
    record = read_record(SEED)
    record["frobnicate"] = 1
    monkeypatch.setattr(catalog, "read_record", lambda path: record)
    problems: list[str] = []
    assert catalog.load_file(SEED, False, problems) is None
    assert problems == [f"{SEED}: $.frobnicate: the schema allows it but the model has no field for it"]


@dataclass(frozen=True)
class _NewThing:  # what a contributor adds to the model: plain fields are read without loader code
    name: str
    rate: float | None = None
    tags: tuple[str, ...] = ()
    applies: tuple[tuple[str, str], ...] = ()
    note: str = ""
    note_zh: str = ""
    context: Context = field(default_factory=Context)


def test_plain_fields_are_read_from_the_key_of_their_name_by_their_type() -> None:
    got = from_record(_NewThing, {"name": "x", "rate": 0.5, "tags": ["a"], "applies": {"torch": ">=2", "cudnn": "<9"},
                                  "note_zh": "注", "context": {"require_any": ["@rnn"], "lines_before": 3}})
    assert got == _NewThing(name="x", rate=0.5, tags=("a",), applies=(("cudnn", "<9"), ("torch", ">=2")),
                            note_zh="注", context=got.context)
    assert got.context.require_any == ("@rnn",) and got.context.lines_before == 3
    assert repr(from_record(_NewThing, {})) == repr(_NewThing(name=""))  # absent: the default, '' for a string


def test_workarounds_inherit_the_tier_and_the_old_chinese_list() -> None:
    record = {"id": "a/b", "signature": "boom", "regex": "boom", "root_cause": "r", "verification_tier": "estimated",
              "workarounds": [{"action": "do"}, {"action": "other", "verification_tier": "framework_docs"}],
              "workarounds_zh": ["做"]}
    sig = build_signature(record, Path("a/b.yaml"), False)
    assert repr(sig.workarounds) == repr((Workaround(action="do", verification_tier="estimated", action_zh="做"),
                                         Workaround(action="other", verification_tier="framework_docs")))


def test_load_catalog_and_validate_read_files_through_one_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    from cudnn_doctor.cli.validate import validate_paths
    from cudnn_doctor.kb import load as catalog
    from cudnn_doctor.kb.compiled import load_catalog

    read: list[str] = []
    real = catalog.load_file
    monkeypatch.setattr(catalog, "load_file", lambda path, *a: read.append(path.name) or real(path, *a))
    fixture = ROOT / "tests" / "fixtures" / "differential" / "cause-frobnicate-old-release.yaml"
    load_catalog([fixture], builtin=False, use_env=False, use_cache=False)
    assert read == [fixture.name]
    read.clear()
    validate_paths([str(fixture)])
    assert fixture.name in read


def test_a_signature_built_from_the_cache_reads_as_one_read_from_its_file() -> None:
    """A cached start builds each signature from its lean record (no examples) and its kept templates and
    lookalikes, and the fields a diagnosis reads only for what it reports when first read (build.LazySignature):
    every field reads as the signature read from its file, whichever is read first."""
    import dataclasses

    from cudnn_doctor.kb.build import DEFERRED, LazySignature
    from cudnn_doctor.kb.load import builtin_dir, signature_paths

    lean_out = ("examples", "counter_examples")
    for i, path in enumerate(signature_paths(builtin_dir())):
        record = read_record(Path(path))
        if not isinstance(record, dict) or "id" not in record:
            continue
        eager = build_signature(record, path, True)
        lean = {k: v for k, v in record.items() if k not in lean_out}
        lazy = build_signature(lean, path, True, [[list(t) for t in eager.templates], [list(t) for t in eager.lookalikes]])
        assert isinstance(lazy, LazySignature)
        names = [n for n in (*DEFERRED, "templates", "lookalikes") if n not in lean_out]
        first = names[i % len(names)]  # read first: builds what it builds
        assert repr(getattr(lazy, first)) == repr(getattr(eager, first)), (path, first)
        for f in dataclasses.fields(eager):
            if f.name not in (*lean_out, "raw"):
                assert repr(getattr(lazy, f.name)) == repr(getattr(eager, f.name)), (path, f.name)
        again = dataclasses.replace(lazy, priority=lazy.priority + 1)  # a changed copy holds every field
        assert repr(again.dead_ends) == repr(eager.dead_ends) and again.priority == eager.priority + 1
