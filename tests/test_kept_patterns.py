"""kb/patterns.py keeps every compiled pattern in the catalog's cache as the arguments the `regex` package's own
pickling rebuilds it from (without parsing it again): a rebuilt pattern is the compiled one."""

from __future__ import annotations

import copyreg
from typing import Any

import pytest

from cudnn_doctor.env.detect import EnvironmentCollector
from cudnn_doctor.kb import patterns
from cudnn_doctor.match import Matcher


def test_every_pattern_rebuilt_from_its_kept_code_is_the_compiled_one(catalog: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patterns, "_CACHE", {})
    Matcher(catalog, probes=EnvironmentCollector().probes()).warm()  # what a catalog cache entry's build compiles
    compiled = dict(patterns._CACHE)
    kept = patterns.kept_code()
    monkeypatch.setattr(patterns, "_CACHE", {})
    monkeypatch.setattr(patterns, "_CODE", patterns.Kept())
    monkeypatch.setattr(patterns, "_compiled", lambda *key: pytest.fail(f"compiled again: {key}"))
    patterns.restore_code(lambda: kept)
    # the same program (the engine's code, the groups) and, for each signature's own pattern, the same matches
    # in its first example and counter-example
    texts = {s.regex: "\n".join(e.text for e in (*s.examples[:1], *s.counter_examples[:1])) for s in catalog.signatures}
    assert len(compiled) > 500
    for key, want in compiled.items():
        got = patterns.compile_pattern(*key)
        assert got is not want and copyreg.dispatch_table[type(got)](got) == copyreg.dispatch_table[type(want)](want), key
        text = texts.get(key[0], "")
        assert [m.span() for m in got.finditer(text)] == [m.span() for m in want.finditer(text)], key


def test_kept_code_that_is_damaged_or_another_patterns_is_compiled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import marshal
    import pickle

    monkeypatch.setattr(patterns, "_CACHE", {})
    monkeypatch.setattr(patterns, "_CODE", patterns.Kept())
    planted = pickle.dumps(print)  # a pickle (the cache's old format) is not marshal data: nothing is called
    key = repr(("a+", ()))
    damaged = (patterns.kept({key: ("b+", 0)}), patterns.kept({key: (1, 2)}), marshal.dumps({key: b"\xffnot marshal"}))
    for kept in (b"not marshal", planted, marshal.dumps([1]), marshal.dumps({key: ("a+", 0)}), *damaged):
        patterns.restore_code(lambda kept=kept: kept)
        patterns._CACHE.clear()
        assert patterns.compile_pattern("a+").findall("xaaya") == ["aa", "a"]


def test_every_derived_value_restored_from_the_cache_is_the_computed_one(catalog: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the matcher derives from the patterns, kept beside the catalog's entry (``kept_derived``) and read
    back one value at a time (``Kept``), is what it computes; a damaged entry is computed again."""
    monkeypatch.setattr(patterns, "_DERIVED", {})
    monkeypatch.setattr(patterns, "_RESTORED", patterns.Kept())
    Matcher(catalog, probes=EnvironmentCollector().probes()).warm()  # what a catalog cache entry's build derives
    computed = dict(patterns._DERIVED)
    kept = patterns.kept_derived()
    monkeypatch.setattr(patterns, "_DERIVED", {})
    patterns.restore_derived(lambda: kept)
    again: list[str] = []
    assert len(computed) > 500
    for (kind, args), want in computed.items():
        got = patterns.derived(kind, args, lambda *_, want=want, kind=kind: again.append(kind) or want)
        assert got == want, (kind, args)
    assert len(again) < len(computed) / 20, sorted(set(again))  # only values that are not plain data
    monkeypatch.setattr(patterns, "_DERIVED", {})
    patterns.restore_derived(lambda: b"\x00damaged")
    assert patterns.derived("line_local", ("a+", ()), lambda *_: "computed") == "computed"
