"""Issue 11: the edges a new user, a fuzzer or a hostile input reaches (usage errors, piped output, cache,
bounds, signals). Each test here failed before its fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from clirunner import invoke
from cudnn_doctor.cli.entry import main
from sampling import exhaustive, sample

HIDDEN = "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"
ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """cudnn-doctor as a real subprocess with pipes (the console script's code path)."""
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run(
        [sys.executable, "-m", "cudnn_doctor", *args], input=data if data is not None else b"",
        capture_output=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=timeout, check=False,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


# --------------------------------------------------------------------------- usage errors

USAGE_MISTAKES = [
    (["diagnose", "--bogus", "x"], "--bogus"),
    (["--format", "xml", "-"], "xml"),
    (["diagnose", "--threshold", "5", "-"], "--threshold"),
    (["diagnose", "--threshold", "high", "-"], "--threshold"),
    (["completion", "tcsh"], "tcsh"),
    (["diagnose", "--lang", "fr", "-"], "--lang"),
    (["diagnose", "--formt", "json", "-"], "did you mean --format"),
    (["diagnose", "--format"], "needs a value"),
    (["diagnose", "--exit-zero=yes", "-"], "takes no value"),
    (["diagnose", "--env", "torch", "-"], "COMPONENT=VERSION"),
    (["lsit"], "did you mean list"),
    (["list", "--bogus"], "--bogus"),
    (["show"], "ID"),
    (["run", "--bogus", "--", "true"], "--bogus"),
    (["run", "--threshold", "2", "--", "true"], "--threshold"),
    (["validate", "--strcit"], "--strcit"),
    (["schema", "nope"], "nope"),
]


@pytest.mark.parametrize(("argv", "says"), USAGE_MISTAKES, ids=[" ".join(a) for a, _ in USAGE_MISTAKES])
def test_usage_mistake_is_one_line_and_exit_2(argv: list[str], says: str) -> None:
    result = cli(*argv, input=HIDDEN)
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cudnn-doctor: error: ") and says in lines[0], lines[0]
    assert "Traceback" not in result.stderr and not result.stdout


def test_usage_mistake_through_main_without_subprocess(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--bogus", "x"]) == 2
    assert main(["list", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "Traceback" not in err


def test_runner_and_subprocess_agree_on_values() -> None:
    """One parser: the in-process runner and the console script read and convert a command line alike."""
    for argv in (["--format", "xml"], ["--threshold", "5"], ["--lang", "fr"]):
        in_process = invoke(["diagnose", *argv, "-"], input=HIDDEN)
        direct = cli("diagnose", *argv, "-", input=HIDDEN)
        assert in_process.exit_code == direct.returncode == 2
        assert in_process.stderr == direct.stderr
    good = ["diagnose", "--format=json", "--threshold", "0.9", "--env", "torch=2.1.0", "-"]
    runner_json = json.loads(invoke(good, input=HIDDEN).stdout)
    direct_json = json.loads(cli(*good, input=HIDDEN).stdout)
    assert runner_json["confidence_threshold"] == direct_json["confidence_threshold"] == 0.9
    assert runner_json["environment"] == direct_json["environment"]


def test_help_still_works() -> None:
    for argv in (["--help"], ["diagnose", "--help"], ["run", "-h"], ["list", "--help"]):
        result = cli(*argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert "usage: cudnn-doctor" in result.stdout


def test_one_parser_one_style() -> None:
    """Issue 29: one parser (argparse, in options.py) for every command, and one style of help: no typer or
    click anywhere, and no metavar written the other way (<str>, TEXT)."""
    cli_dir = ROOT / "src" / "cudnn_doctor"
    for path in cli_dir.rglob("*.py"):
        text = path.read_text()
        assert "import typer" not in text and "import click" not in text, path
        if path.name != "options.py":
            assert "ArgumentParser(" not in text and "add_argument(" not in text, path
    for name in ("diagnose", "run", "triage", "list"):
        text = cli(name, "--help").stdout
        assert "<str>" not in text and " TEXT" not in text and "<list[" not in text, text


# --------------------------------------------------------------------------- every format, every scope

SARIF_SCHEMA = ROOT / "tests" / "fixtures" / "sarif-schema-2.1.0.json"  # OASIS SARIF 2.1.0, in the repository


def _finding_of_each_scope() -> dict[str, str]:
    import catalogs

    texts: dict[str, str] = {}
    for sig in catalogs.builtin().signatures:
        if sig.scope not in texts and sig.examples and sig.severity == "error":
            texts[sig.scope] = sig.examples[0].text
    return texts


@pytest.mark.parametrize("scope", ["rnn", "cudnn", "cuda"])
def test_every_format_is_valid_for_a_finding_of_every_scope(scope: str) -> None:
    import xml.etree.ElementTree as ET

    import jsonschema

    from cudnn_doctor import diagnose
    from cudnn_doctor.render import Format, render

    text = _finding_of_each_scope()[scope]
    record = diagnose(text).to_dict()
    assert any(f["scope"] == scope for f in record["findings"]), scope
    output_schema = json.loads((ROOT / "src" / "cudnn_doctor" / "data" / "output.schema.json").read_text())
    for fmt in Format:
        out = render(fmt, record, color=False)
        assert out.strip(), fmt
        if fmt is Format.json:
            jsonschema.validate(json.loads(out), output_schema)
        elif fmt is Format.sarif:
            log = json.loads(out)
            for rule in log["runs"][0]["tool"]["driver"]["rules"]:
                tags = rule.get("properties", {}).get("tags", [])
                assert len(tags) == len(set(tags)), tags
            schema = json.loads(SARIF_SCHEMA.read_text())
            errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))
            assert not errors, [e.message for e in errors[:5]]
        elif fmt is Format.junit:
            ET.fromstring(out)
        elif fmt is Format.gitlab:
            issues = json.loads(out)
            assert issues and all({"description", "fingerprint", "severity", "location"} <= set(i) for i in issues)


def test_diagnosis_is_json_serializable_through_to_dict() -> None:
    from cudnn_doctor import diagnose

    d = diagnose(HIDDEN, threshold=0.4)
    record = json.loads(json.dumps(d.to_dict()))
    assert record == json.loads(d.to_json())
    assert record["confidence_threshold"] == 0.4
    assert record["findings"][0]["id"] == "pytorch/rnn-hidden-size-mismatch"


def test_threshold_reaches_the_report_and_the_ranking() -> None:
    from cudnn_doctor import diagnose

    strict = diagnose(HIDDEN, threshold=1.0)
    assert strict.to_dict()["confidence_threshold"] == 1.0
    assert not strict.findings and strict.below_threshold
    lax = diagnose(HIDDEN, threshold=0.0)
    assert lax.findings and lax.to_dict()["confidence_threshold"] == 0.0


def test_package_ships_py_typed(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=120)
    import zipfile

    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "cudnn_doctor/py.typed" in names and "cudnn_doctor/data/signature.schema.json" in names


def test_schema_command_prints_the_schema_with_a_real_id() -> None:
    result = cli("schema")
    schema = json.loads(result.stdout)
    assert result.returncode == 0 and schema["title"] == "cudnn-doctor error signature"
    assert ".invalid" not in schema["$id"] and schema["$id"].startswith(("urn:", "https://"))
    assert json.loads(cli("schema", "output").stdout)["$id"] != schema["$id"]
    assert "cudnn-doctor schema" in (ROOT / "docs" / "signature-format.md").read_text()


# --------------------------------------------------------------------------- piped output


def test_piped_list_keeps_every_id_whole_on_one_line() -> None:
    from cudnn_doctor.kb.compiled import load_catalog

    result = cli("list", env={"COLUMNS": "60"})
    assert result.returncode == 0
    out = result.stdout
    for sig in load_catalog().signatures:
        line = next((ln for ln in out.splitlines() if ln.startswith(sig.id + " ")), None)
        assert line is not None, sig.id
        assert sig.title in line
    search = cli("search", "hidden", env={"COLUMNS": "60"})
    assert "pytorch/rnn-hidden-size-mismatch " in search.stdout


@pytest.mark.parametrize(("argv", "says"), [
    (["list", "--format", "yaml"], "terminal or json"),
    (["list", "--scope", "bogus"], "--scope"),
    (["list", "--framework", "pytroch"], "did you mean pytorch"),
    (["list", "--severity", "fatal"], "--severity"),
])
def test_list_refuses_what_it_does_not_know(argv: list[str], says: str) -> None:
    result = cli(*argv)
    assert result.returncode == 2 and says in result.stderr and not result.stdout


def test_piped_report_never_folds_or_cuts_code(tmp_path: Path) -> None:
    long_code = "    out, h = self.lstm(" + "x" * 180 + ", (h0, c0))"
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 12, in <module>\n'
        f"{long_code}\n"
        "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"
    )
    result = cli("-", input=log, env={"COLUMNS": "80"})
    assert result.returncode == 1
    assert long_code.strip() in result.stdout


def test_one_line_is_singular() -> None:
    result = cli("-", input=HIDDEN)
    assert "1 finding in <stdin> (1 line)" in result.stdout


# --------------------------------------------------------------------------- small defects


@pytest.mark.parametrize("size", [3 << 20, (10 << 20) + 12345])
def test_a_long_line_is_counted_as_cut_once(tmp_path: Path, size: int) -> None:
    import re

    from cudnn_doctor.read.sources import MAX_LINE, ReadStats, read_blocks, sources_from_args

    log = tmp_path / "bar.log"
    log.write_bytes(b"start\n" + b"#" * size + b"\n" + HIDDEN.encode())
    (src,), _ = sources_from_args([str(log)], None)
    stats = ReadStats()
    data = b"".join(b.data + b"\n" for b in read_blocks(src, stats))
    assert stats.cut_lines == 1 and stats.lines == 3
    (marker,) = re.findall(rb"\[\.\.\. (\d+) bytes cut", data)
    assert int(marker) == size - MAX_LINE
    from cudnn_doctor import diagnose

    d = diagnose(log.read_bytes())
    assert [w for w in d.warnings if "1 line(s) longer" in w]
    assert d.findings and d.findings[0].first.line == 3


def test_explain_zh_is_read() -> None:
    from cudnn_doctor import diagnose

    text = "RuntimeError: input.size(-1) must be equal to input_size. Expected 32, got 64\n"
    en = diagnose(text).findings[0]
    zh = diagnose(text, lang="zh").findings[0]
    assert en.id == zh.id == "pytorch/rnn-input-size-mismatch"
    assert "input_size=32" in zh.explanation and "模型配置" in zh.explanation
    assert "模型配置" not in en.explanation


def test_window_default_in_the_docs_is_the_code_default() -> None:
    from cudnn_doctor.kb.build import default_window as _default_window

    assert _default_window(r"Expected hidden\[0\] size") == (2, 2)
    assert _default_window(r"foo\nbar") == (30, 30)
    assert "default 2 / 2" in (ROOT / "docs" / "signature-format.md").read_text()


def test_a_file_named_like_a_command(tmp_path: Path) -> None:
    for name in ("list", "env"):
        (tmp_path / name).write_text(HIDDEN)
        as_path = cli(f"./{name}", cwd=tmp_path)
        assert as_path.returncode == 1 and "pytorch/rnn-hidden-size-mismatch" in as_path.stdout
        after = cli("diagnose", name, cwd=tmp_path)
        assert after.returncode == 1 and "pytorch/rnn-hidden-size-mismatch" in after.stdout
        bare = cli(name, cwd=tmp_path)  # the command, and a note saying how to reach the file
        assert bare.returncode == 0 and f"write ./{name}" in bare.stderr
    readme = (ROOT / "README.md").read_text()
    assert "./list" in readme


def test_run_takes_env_and_threshold_and_honours_force_color(tmp_path: Path) -> None:
    failing = f"import sys; print({HIDDEN.strip()!r}, file=sys.stderr); sys.exit(3)"
    out = cli("run", "--format", "json", "--env", "torch=2.1.0", "--threshold", "0.3", "--", sys.executable, "-c", failing)
    assert out.returncode == 3
    record = json.loads(out.stdout[out.stdout.index("{"):])
    assert record["confidence_threshold"] == 0.3 and record["environment"]["torch"]["version"] == "2.1.0"
    colored = cli("run", "--", sys.executable, "-c", failing, env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in colored.stderr
    plain = cli("run", "--", sys.executable, "-c", failing, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in plain.stderr


# --------------------------------------------------------------------------- signatures given by the user


def test_empty_signatures_dir_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "sigs"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a signature")
    run = cli("--no-builtin", "--signatures", str(empty), "-", input=HIDDEN)
    assert run.returncode == 2 and "no signature files" in run.stderr
    validate = cli("validate", str(empty))
    assert validate.returncode == 2 and "no signature files" in validate.stderr and "ok:" not in validate.stdout


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_signatures_dir_is_an_error(tmp_path: Path) -> None:
    locked = tmp_path / "sigs"
    locked.mkdir()
    (locked / "a.yaml").write_text("id: x/y\n")
    locked.chmod(0)
    try:
        run = cli("--no-builtin", "--signatures", str(locked), "-", input=HIDDEN)
        assert run.returncode == 2 and "cannot read" in run.stderr
    finally:
        locked.chmod(0o755)


def test_every_placeholder_is_a_capture_or_derived(tmp_path: Path) -> None:
    import yaml

    src = yaml.safe_load((ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text())
    for field, text in (("root_cause", "Wrong {nope} here."), ("explain_zh", "错 {nope}"), ("title", "Size {expected} is wrong")):
        record = dict(src, **{field: text})
        path = tmp_path / "x" / f"{field}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump(record))
        result = cli("validate", str(path))
        assert result.returncode == 2 and f"$.{field}" in result.stderr, (field, result.stderr)
        path.unlink()


def test_library_not_found_prints_the_library_not_a_placeholder() -> None:
    from cudnn_doctor import diagnose

    log = ("W dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
           "shared object file: No such file or directory\n")
    record = diagnose(log).to_dict()
    f = record["findings"][0]
    assert f["id"] == "cudnn/library-not-found"
    assert "{lib}" not in json.dumps(record) and "(libcudnn.so.8)" in f["root_cause"]


# --------------------------------------------------------------------------- the catalog cache


def _user_sigs(tmp_path: Path) -> Path:
    d = tmp_path / "mine" / "custom"
    d.mkdir(parents=True)
    src = (ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text()
    (d / "hidden.yaml").write_text(src.replace("id: pytorch/rnn-hidden-size-mismatch", "id: custom/hidden"))
    return d


def test_cache_miss_and_hit_return_the_same_catalog(fresh_cache: Path) -> None:
    from cudnn_doctor.kb.compiled import load_catalog

    miss = load_catalog()
    hit = load_catalog()
    assert len(list(fresh_cache.glob("catalog-*"))) == 1
    assert [s.id for s in miss.signatures] == [s.id for s in hit.signatures]
    assert [(len(s.examples), len(s.counter_examples)) for s in miss.signatures] == [
        (len(s.examples), len(s.counter_examples)) for s in hit.signatures]
    assert [s.raw for s in miss.signatures] == [s.raw for s in hit.signatures]


def test_cache_entries_per_key_do_not_evict_each_other(warm_cache: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from cudnn_doctor.kb import compiled

    mine = _user_sigs(tmp_path)
    compiled.load_catalog()  # the built-in base's entry is there (warm_cache)
    compiled.load_catalog([mine])
    assert len(list(warm_cache.glob("catalog-*"))) == 2
    builds = []
    monkeypatch.setattr(compiled, "read_catalog", lambda *a: builds.append(a))
    compiled.load_catalog()
    compiled.load_catalog([mine])
    assert builds == []  # both were hits


def test_a_process_that_diagnoses_again_and_again_loads_the_catalog_once(warm_cache: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The library, the excepthook, IPython and the pytest plugin call diagnose(text) with no catalog, once per
    error: the catalog is read once per process while its files and cache entry stay as they are, and a
    process that loads many kept only the last few (each used to stay for good: ~9 MB a call)."""
    from cudnn_doctor import diagnose
    from cudnn_doctor.kb import compiled

    first = compiled.load_catalog()
    monkeypatch.setattr(compiled, "_from_entry", lambda entry: pytest.fail("the cache entry was read again"))
    for _ in range(3):
        assert diagnose("RuntimeError: rnn: hx is not contiguous").findings
    assert compiled.load_catalog() is first
    monkeypatch.undo()
    monkeypatch.setenv("CUDNN_DOCTOR_CACHE_DIR", str(warm_cache))
    entry = next(warm_cache.glob("catalog-*"))
    entry.write_bytes(entry.read_bytes())  # another process wrote it again: read again
    assert compiled.load_catalog() is not first
    monkeypatch.setenv("CUDNN_DOCTOR_CACHE_DIR", str(tmp_path / "cache"))  # not the shared warm cache's directory
    for i in range(compiled.MAX_LOADED + 3):
        d = _user_sigs(tmp_path / str(i))
        compiled.load_catalog([d], builtin=False, use_env=False)  # one signature each: a cheap distinct catalog
    assert len(compiled._LOADED) == compiled.MAX_LOADED


def test_cache_key_has_every_input(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import regex

    from cudnn_doctor.kb import compiled, patterns
    from cudnn_doctor.kb import load as catalog_mod

    keys = {compiled._fingerprint([], [])}
    # the regex C extension that compiled the cached programs: its file, size and mtime (found without
    # importing the package), or the package's version where the file cannot be found
    engine = patterns._engine_spec()
    assert engine is not None and f"{engine.origin}\0" in compiled._fingerprint([], [])
    monkeypatch.setattr(patterns, "_engine_spec", lambda: None)
    keys.add(compiled._fingerprint([], []))
    monkeypatch.setattr(regex, "__version__", "0.0.0-other")
    keys.add(compiled._fingerprint([], []))
    monkeypatch.setattr(sys, "version", sys.version + " other build")
    keys.add(compiled._fingerprint([], []))
    assert len(keys) == 4
    for module in (catalog_mod, compiled):
        assert str(Path(module.__file__).resolve()) in compiled._fingerprint([], [])
    # every module of kb/ and match/ shapes the derived values: none may be left out of the key (a hand-kept
    # list once named a module that had gone and missed match/reading.py)
    package = Path(compiled.__file__).resolve().parent.parent
    key = compiled._fingerprint([], [])
    for folder in ("kb", "match"):
        for module in (package / folder).glob("*.py"):
            assert f"{module}\0" in key, module


def test_regex_error_is_caught_once_the_package_is_loaded() -> None:
    """patterns.regex_error() stands for regex.error in ``except`` clauses: the real class once the package
    is imported (a pattern that fails to compile is reported, not raised), a class nothing raises before."""
    from cudnn_doctor.kb import patterns

    regex = patterns.regex_module()
    assert patterns.regex_error() is regex.error
    with pytest.raises(patterns.regex_error()):
        regex.compile("(unclosed")


def test_cache_bounded_oldest_pruned(fresh_cache: Path) -> None:
    from cudnn_doctor.kb import cache

    for i in range(cache.MAX_ENTRIES + 4):
        cache.store(f"key {i}", {"n": i})
    assert len(list(fresh_cache.glob("catalog-*.cache"))) == cache.MAX_ENTRIES
    assert cache.load(f"key {cache.MAX_ENTRIES + 3}") == {"n": cache.MAX_ENTRIES + 3}
    # a kind is pruned on its own, also beside a kind whose name starts with its own
    for i in range(4):
        cache.store(f"x {i}", i, kind="db", keep=2)
        cache.store(f"y {i}", i, kind="db-context", keep=3)
    assert len(list(fresh_cache.glob("db-context-*.cache"))) == 3
    assert len(list(fresh_cache.glob("db-*.cache"))) == 2 + 3


def test_hyperscan_databases_cached_apart_from_catalogs(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, hyperscan) -> None:  # type: ignore[no-untyped-def]
    """A literal set compiled once is deserialized after (each retired probe asks for a new set: 20-30 ms of
    compiling per process otherwise); a damaged entry is compiled again; hyperscan entries do not evict
    compiled catalogs."""
    from cudnn_doctor.kb import cache
    from cudnn_doctor.match import prefilter

    compiles = []
    real = hyperscan.Database.compile

    class Counting(hyperscan.Database):  # type: ignore[misc, name-defined]
        def compile(self, **kw: object) -> None:
            compiles.append(1)
            real(self, **kw)

    monkeypatch.setattr(hyperscan, "Database", Counting)
    cache.store("a catalog", {"n": 1})

    def hits(words: list[bytes]) -> list[tuple[int, int]]:
        db = prefilter.hyperscan_db(tuple(words))
        found: list[tuple[int, int]] = []
        db.scan(b"an LSTM and a GRU", match_event_handler=lambda i, _f, to, _fl, _c: found.append((i, to)))
        return found

    assert hits([b"lstm", b"gru"]) == [(0, 7), (1, 17)] and len(compiles) == 1
    assert hits([b"lstm", b"gru"]) == [(0, 7), (1, 17)] and len(compiles) == 1  # loaded
    for i in range(cache.HYPERSCAN_ENTRIES + 2):
        hits([b"lstm", f"w{i}".encode()])
    assert len(list(fresh_cache.glob("hyperscan-*.cache"))) == cache.HYPERSCAN_ENTRIES
    assert cache.load("a catalog") == {"n": 1}
    # the context items' databases (prefilter.RuleOut's) are kept apart too: neither kind evicts the other
    for i in range(6):
        assert prefilter.hyperscan_db((b"lstm", f"w{i}".encode()), single=True) is not None
    assert len(list(fresh_cache.glob("hscontext-*.cache"))) == 4
    assert len(list(fresh_cache.glob("hyperscan-*.cache"))) == cache.HYPERSCAN_ENTRIES
    n = len(compiles)
    for entry in fresh_cache.glob("hyperscan-*.cache"):  # tampered with: not loaded, compiled again
        entry.write_bytes(entry.read_bytes()[:-100])
    assert hits([b"lstm", b"gru"]) == [(0, 7), (1, 17)] and len(compiles) == n + 1

    def other_platform(*_a: object) -> None:
        raise RuntimeError("a database compiled for another CPU")

    monkeypatch.setattr(hyperscan, "loadb", other_platform)  # hyperscan refuses it
    assert hits([b"lstm", b"gru"]) == [(0, 7), (1, 17)] and len(compiles) == n + 2


class _Evil:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {os.environ['EVIL_MARKER']}",))


def test_the_cache_holds_plain_data_and_a_planted_pickle_runs_nothing(warm_cache: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog's entry is plain data (records, evidence, derived values: a JSON value in marshal's format):
    a pickle planted in its place (the old format, a CI cache restored from elsewhere) is not an entry, is read
    as a miss and rebuilt; nothing runs."""
    import pickle

    from cudnn_doctor.kb import cache
    from cudnn_doctor.kb.compiled import load_catalog

    first = load_catalog()
    (entry,) = warm_cache.glob("catalog-*.cache")
    assert isinstance(_entry_value(entry)["signatures"], list)
    marker = tmp_path / "pwned"
    monkeypatch.setenv("EVIL_MARKER", str(marker))
    entry.write_bytes(pickle.dumps(_Evil()))
    again = load_catalog()
    assert not marker.exists() and [s.id for s in again.signatures] == [s.id for s in first.signatures]
    assert _entry_value(entry)["signatures"]  # written again
    value = {"a": [1, 2.5, None, True, "\u00e9\ud800"], "t": (1, (2,)), "n": {}}
    cache.store("plain", value)
    assert cache.load("plain") == json.loads(json.dumps(value))  # what JSON would give back: lists, not tuples


def _entry_parts(path: Path) -> tuple[bytes, str, Any]:
    """A cache entry file's magic line, key and value (kb/cache.py: a magic line, the key's length in 4 bytes,
    the key, then the value in marshal's format)."""
    import marshal

    data = path.read_bytes()
    at = data.index(b"\n") + 1
    size = int.from_bytes(data[at : at + 4], "little")
    return data[:at], data[at + 4 : at + 4 + size].decode("utf-8", "surrogatepass"), marshal.loads(data[at + 4 + size :])


def _entry_value(path: Path) -> Any:
    return _entry_parts(path)[2]


def _entry_bytes(magic: bytes, key: str, value: Any) -> bytes:
    import marshal

    encoded = key.encode("utf-8", "surrogatepass")
    return magic + len(encoded).to_bytes(4, "little") + encoded + marshal.dumps(value)


_COMPILING = "cudnn-doctor: note: compiling the knowledge base (a few seconds; kept in {} for the runs after this one)\n"


def test_a_cold_cache_is_said_once_not_a_silent_wait(fresh_cache: Path, tmp_path: Path) -> None:
    """The first run after an install compiles the base (seconds): one stderr line says so; the next run is quiet."""
    paste = tmp_path / "paste.txt"
    paste.write_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED when calling cudnnRNNBackwardData_v8\n")
    argv = [sys.executable, "-m", "cudnn_doctor", "diagnose", "--format", "json", str(paste)]
    cold = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    warm = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert cold.stderr == _COMPILING.format(fresh_cache) and warm.stderr == ""
    assert cold.stdout == warm.stdout and json.loads(cold.stdout)["findings"]


# each damaged entry is rebuilt by a whole cold load (~3 s of CPU): a cut file and one that parses but is not an
# entry by default, the other kinds under -m exhaustive
@pytest.mark.parametrize("damage", ["truncated", "wrong shape", *exhaustive(["not json", "another key", "empty"])])
def test_a_corrupt_catalog_entry_is_rebuilt_not_a_failed_run(warm_cache: Path, tmp_path: Path, damage: str) -> None:
    """Issue 30: a damaged entry used to fail the run (exit 2, "run again"); now it is a miss, rebuilt."""
    paste = tmp_path / "paste.txt"
    paste.write_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED when calling cudnnRNNBackwardData_v8\n")
    argv = [sys.executable, "-m", "cudnn_doctor", "diagnose", "--format", "json", str(paste)]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    (entry,) = warm_cache.glob("catalog-*.cache")
    data = entry.read_bytes()
    magic, key, value = _entry_parts(entry)
    bad = {
        "truncated": data[: len(data) // 2],
        "not json": b"\x00\x01garbage",
        "another key": _entry_bytes(magic, "other", value),
        "wrong shape": _entry_bytes(magic, key, {"signatures": [[1, 2, 3]]}),
        "empty": b"",
    }[damage]
    entry.write_bytes(bad)
    got = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert got.returncode == first.returncode and got.stderr == _COMPILING.format(warm_cache)  # rebuilt, and said
    assert json.loads(got.stdout)["findings"] == json.loads(first.stdout)["findings"]
    assert _entry_parts(entry)[1] == key and _entry_value(entry)["signatures"]  # rebuilt in place


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("mode", sample([0o775, 0o777], 1))  # a cold load each: one by default
def test_a_cache_directory_others_can_write_is_said_once_and_a_private_one_used(
    fresh_cache: Path, tmp_path: Path, mode: int
) -> None:
    """Issue 30: a restored CI cache (0775) or a shared one (0777) silently cost every run the full load; now
    one stderr line says so, and a private directory in the temp dir serves as the cache."""
    (tmp_path / "tmp").mkdir()
    fresh_cache.mkdir()
    fresh_cache.chmod(mode)
    paste = tmp_path / "paste.txt"
    paste.write_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED when calling cudnnRNNBackwardData_v8\n")
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    argv = [sys.executable, "-m", "cudnn_doctor", "diagnose", str(paste)]
    runs = [subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env) for _ in range(2)]
    for run in runs:
        said = run.stderr.replace(_COMPILING.format(next((tmp_path / "tmp").glob("cudnn-doctor-*"))), "")
        assert run.returncode == 1 and said.count("\n") == 1, run.stderr
        assert "writable by others" in said and "cudnn-doctor-" in said
    assert "compiling" not in runs[1].stderr  # the private directory kept what the first run compiled
    assert runs[0].stdout == runs[1].stdout
    assert not list(fresh_cache.iterdir())  # nothing written where others can write
    (private,) = (tmp_path / "tmp").glob("cudnn-doctor-*")
    assert private.stat().st_mode & 0o777 == 0o700 and list(private.glob("catalog-*.cache"))


def test_a_full_disk_leaves_no_partial_file_and_says_so(fresh_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: a write that fails (a full disk) used to leave its .tmp file behind; now nothing is left, the
    run goes on, and one line says the cache could not be written."""
    import errno

    from cudnn_doctor.kb import cache
    from cudnn_doctor.kb.compiled import load_catalog

    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fd: int, mode: str) -> None:
            self.fh = real_fdopen(fd, mode)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, data: bytes) -> None:
            self.fh.write(data[: len(data) // 3])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache.os, "fdopen", Full)
    cache._said.clear()
    mine = _user_sigs(tmp_path)  # one signature: each load here is a miss, built again
    assert load_catalog([mine], builtin=False).signatures
    assert load_catalog([mine], builtin=False).signatures
    assert list(fresh_cache.iterdir()) == []  # no entry, no partial file
    err = capsys.readouterr().err.replace(_COMPILING.format(fresh_cache), "")  # said once, then the failure
    assert err.count("\n") == 1 and "No space left on device" in err


# --------------------------------------------------------------------------- regex cost


SLOW_SIG = """\
id: custom/slow
title: A user pattern whose every search is slow but under the per-search timeout
signature: "Boom: ..."
regex: 'Boom: (?:[a-z]|[a-z][a-z])+#'
root_cause: A test.
examples:
  - text: "noise before\n Boom: abcdef# and after"
"""


def test_a_slow_signature_is_dropped_past_its_budget_naming_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from cudnn_doctor.kb.compiled import load_catalog
    from cudnn_doctor.match import context  # the module that reads SIGNATURE_BUDGET_S
    from cudnn_doctor.scan import diagnose

    d = tmp_path / "mine"
    d.mkdir()
    (d / "slow.yaml").write_text(SLOW_SIG)
    monkeypatch.setattr(context, "SIGNATURE_BUDGET_S", 0.5)
    catalog = load_catalog([d], builtin=False, use_cache=False)
    # each line: 27 letters then a fail: ~0.1-0.2 s of splits per line, under the 1 s per-search timeout; each
    # line its own (a line seen before is not searched again: Matcher._search_lines)
    log = "".join(f"Boom: {'a' * 27}!# {i}\n" for i in range(200))
    started = time.perf_counter()
    result = diagnose(log, catalog=catalog)
    took = time.perf_counter() - started
    assert took < 15, took  # without the budget: 200 searches of ~0.15 s, over 30 s
    (warning,) = [w for w in result.warnings if "custom/slow" in w]
    assert str(d / "slow.yaml") in warning and "skipped" in warning


def test_validate_flags_nested_quantifiers_that_backtrack(tmp_path: Path) -> None:
    import time

    path = tmp_path / "custom" / "slow.yaml"
    path.parent.mkdir()
    path.write_text(SLOW_SIG)
    started = time.perf_counter()
    result = cli("validate", str(path))
    assert result.returncode == 2 and "nested quantifiers backtrack" in result.stderr, result.stderr
    assert time.perf_counter() - started < 30
    fixed = SLOW_SIG.replace("(?:[a-z]|[a-z][a-z])+#", "[a-z]+#")
    path.write_text(fixed)
    ok = cli("validate", str(path))
    assert "nested quantifiers" not in ok.stderr, ok.stderr


QUADRATIC_SIG = """\
id: custom/quadratic
title: A pattern that begins with an unbounded run, so every search position rescans the line
signature: "... could not create cudnn handle ... Fail to find the dnn implementation"
regex: '(?:[^\\n]*?Could not create cudnn handle[^\\n]*\\n)?Fail to find the dnn implementation'
prefilter: ["Fail to find the dnn implementation"]
root_cause: A test.
examples:
  - text: "noise before\\nE Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\\nFail to find the dnn implementation\\n"
"""


def test_validate_flags_a_pattern_quadratic_in_the_line_length(tmp_path: Path) -> None:
    # a search starting at every position of a long line rescans its rest: a log's 1 MB line took minutes
    path = tmp_path / "custom" / "quadratic.yaml"
    path.parent.mkdir()
    path.write_text(QUADRATIC_SIG)
    result = cli("validate", str(path))
    assert result.returncode == 2 and "rescans the line from every position" in result.stderr, result.stderr
    path.write_text(QUADRATIC_SIG.replace("(?:[^", "(?:^[^"))  # anchored at the line's start: linear
    ok = cli("validate", str(path))
    assert "rescans" not in ok.stderr, ok.stderr


def test_nested_quantifier_detection() -> None:
    from cudnn_doctor.kb.regexcheck import nested_quantifier

    assert nested_quantifier(r"(a+)+$") and nested_quantifier(r"(\w+\s?)*x")
    assert not nested_quantifier(r"a+b+c*") and not nested_quantifier(r"(?:ab){0,3}c+")


# --------------------------------------------------------------------------- supported range


def test_lowest_constraints_pin_every_lower_bound() -> None:
    import re

    from packaging.requirements import Requirement

    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", text, re.S | re.M)
    assert deps
    pins = dict(re.findall(r"^([\w.-]+)==(\S+)", (ROOT / ".ci" / "lowest-constraints.txt").read_text(), re.M))
    for line in re.findall(r'"([^"]+)"', deps.group(1)):
        req = Requirement(line)
        lower = [s.version for s in req.specifier if s.operator == ">="]
        assert lower, f"{req.name}: no lower bound"
        pinned = pins.get(req.name)
        assert pinned is not None, f"{req.name} missing from .ci/lowest-constraints.txt"
        assert req.specifier.contains(pinned), (req.name, pinned)
        from packaging.version import Version

        assert Version(pinned) == Version(lower[0]), f"{req.name}: lower bound {lower[0]}, CI tests {pinned}"
    assert "3.10" in (ROOT / ".ci" / "run").read_text() and "3.13" in (ROOT / ".ci" / "run").read_text()


def test_supported_python_versions_are_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'requires-python = ">=3.10"' in text
    for v in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {v}" in text


# --------------------------------------------------------------------------- run: signals, pipes, lines

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and process groups")
# the files are closed by ``with``, not when the object is dropped: a signal that arrives while the pid file is
# closed in a finalizer has its handler's SystemExit ignored ("Exception ignored in: <_io.TextIOWrapper ...>"),
# and the child sleeps on (seen once on CI: the test's 30 s timeout)
CHILD = """
import os, signal, sys, time
pidfile = sys.argv[1]
def bye(signum, frame):
    with open(pidfile + ".got", "w") as fh:
        fh.write(str(signum))
    sys.exit(128 + signum)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(s, bye)
with open(pidfile, "w") as fh:
    fh.write(str(os.getpid()))
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def _start_run(tmp_path: Path, code: str) -> tuple[subprocess.Popen[bytes], Path]:
    import time

    pidfile = tmp_path / "child.pid"
    proc = subprocess.Popen([sys.executable, "-m", "cudnn_doctor", "run", "--", sys.executable, "-c", code, str(pidfile)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pidfile.exists(), proc.communicate(timeout=5)
    return proc, pidfile


@posix_only
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
def test_run_forwards_a_terminating_signal_and_exits_128_plus_n(tmp_path: Path, signame: str) -> None:
    import signal
    import time

    signum = getattr(signal, signame)
    proc, pidfile = _start_run(tmp_path, CHILD)
    child = int(pidfile.read_text())
    started = time.monotonic()
    proc.send_signal(signum)  # to cudnn-doctor alone, as `kill` or a CI runner's cancel does
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum
    assert (tmp_path / "child.pid.got").read_text() == str(int(signum))
    assert not _alive(child)
    assert time.monotonic() - started < 10


GRANDCHILD = """
import os, subprocess, sys
pidfile = sys.argv[1]
g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits stdout/stderr
open(pidfile + ".grandchild", "w").write(str(g.pid))
open(pidfile, "w").write(str(os.getpid()))
print("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]", file=sys.stderr)
sys.exit(1)
"""


@posix_only
def test_run_does_not_wait_for_or_orphan_a_grandchild_holding_the_pipe(tmp_path: Path) -> None:
    import time

    started = time.monotonic()
    proc, _ = _start_run(tmp_path, GRANDCHILD)
    _, err = proc.communicate(timeout=30)
    took = time.monotonic() - started
    grandchild = int((tmp_path / "child.pid.grandchild").read_text())
    assert proc.returncode == 1 and b"pytorch/rnn-hidden-size-mismatch" in err
    assert took < 8, took
    time.sleep(0.2)
    assert not _alive(grandchild)


def test_run_reports_true_line_numbers_after_truncation() -> None:
    from cudnn_doctor.cli.run import run

    code = ("import sys\n"
            "for i in range(1, 20001): print(f'line {i:06d} ' + 'x' * 40)\n"
            f"print({HIDDEN.strip()!r})\n"
            "sys.exit(1)\n")
    import io

    result = run([sys.executable, "-c", code], stdout=io.BytesIO(), stderr=io.BytesIO(),
                 head_bytes=4096, tail_bytes=64 << 10)
    (f,) = result.diagnosis.findings
    assert f.first.line == 20001
    assert any("not kept" in w or "were kept" in w for w in result.diagnosis.warnings)


# --------------------------------------------------------------------------- bounds


@pytest.mark.parametrize("n", [150, *exhaustive([600])])  # 600 files: ~10 s of CPU
def test_a_directory_of_failing_logs_aggregates(tmp_path: Path, n: int) -> None:
    import tracemalloc

    from cudnn_doctor.read.sources import sources_from_args
    from cudnn_doctor.scan import Options, diagnose_sources

    d = tmp_path / "logs"
    d.mkdir()
    for i in range(n):
        (d / f"job-{i:05d}.log").write_text(f"epoch {i}\nERROR: something failed\n{HIDDEN}")
    sources, problems = sources_from_args([str(d)], None)
    assert not problems and len(sources) == n
    catalog = catalogs.builtin()  # loaded before: the peak is the files' (a load under tracemalloc took ~10 s)
    tracemalloc.start()
    result = diagnose_sources(sources, catalog=catalog, options=Options(jobs=1), strict_input=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    (f,) = result.findings
    assert f.count == n and f.files == n
    assert f.first.source.endswith("job-00000.log") and f.last.source.endswith(f"job-{n - 1:05d}.log")
    assert peak < 40 << 20, peak
    record = result.to_dict()
    assert record["findings"][0]["files"] == n
    from cudnn_doctor.render import Format, render

    header = render(Format.terminal, record, color=False).splitlines()[0]
    assert f"{n} files" in header and len(header) < 400
    assert f"in {n} files" in render(Format.terminal, record, color=False)


def test_a_gzip_bomb_is_refused_with_a_clear_message_and_the_flag_raises_the_limit(tmp_path: Path) -> None:
    import gzip
    import time

    from cudnn_doctor.read import sources as input_mod

    bomb = tmp_path / "bomb.log.gz"
    # 300 MiB of newlines: ~300 KiB compressed (~1000x), as 300 gzip members of 1 MiB (a valid file, as `cat`
    # of gzip files makes), compressed once instead of 300 times
    member = gzip.compress(b"\n" * (1 << 20), compresslevel=9)
    bomb.write_bytes(gzip.compress(HIDDEN.encode()) + member * 300)
    assert bomb.stat().st_size < 2 << 20
    started = time.perf_counter()
    result = cli(str(bomb))
    assert result.returncode == 2 and "gzip bomb" in result.stderr and "--max-gzip-ratio" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert time.perf_counter() - started < 60
    small = tmp_path / "ok.log.gz"
    with gzip.open(small, "wb") as fh:
        fh.write((b"noise\n" * 1000) + HIDDEN.encode())
    assert cli(str(small)).returncode == 1
    # the limit: ratio x compressed bytes read, at least GZIP_FLOOR; a lower floor shows it on a small file
    from cudnn_doctor.read.sources import ReadStats, read_blocks, sources_from_args

    (src,), _ = sources_from_args([str(small)], None)
    original = input_mod.GZIP_FLOOR
    try:
        input_mod.GZIP_FLOOR = 0
        with pytest.raises(Exception, match="gzip bomb"):
            list(read_blocks(src, ReadStats(), None, 2.0))
        assert list(read_blocks(src, ReadStats(), None, 0))  # 0: no limit
    finally:
        input_mod.GZIP_FLOOR = original
    assert cli("--max-gzip-ratio", "-1", str(small)).returncode == 2


def test_ci_recipes_install_from_the_repository_until_a_release() -> None:
    text = (ROOT / "docs" / "ci.md").read_text()
    import re

    installs = [line for line in re.findall(r"pip install[^\n]*", text) if "cudnn-doctor" in line and "replaces it" not in line]
    assert len(installs) >= 4
    for line in installs:  # no `pip install cudnn-doctor` from an index that does not have it
        assert "git+https://github.com/OWNER/cudnn-doctor@" in line, line
    assert "OWNER" in text and "not on the package index" in text


def test_every_command_has_help() -> None:
    from cudnn_doctor.cli.commands import COMMANDS

    for name in COMMANDS:
        result = cli(name, "--help")
        assert result.returncode == 0 and f"usage: cudnn-doctor {name}" in result.stdout, (name, result.stderr[-300:])


@pytest.mark.parametrize("how", ["stdin", "file"])
def test_a_pasted_traceback_imports_nothing_it_does_not_use(warm_cache: Path, tmp_path: Path, how: str) -> None:
    """python -X importtime on a warm cache: a pasted traceback's diagnosis (terminal output), on standard
    input or as a file argument, loads no YAML, schema, version-specifier, OpenSSL-backed hashing, hyperscan,
    gzip, typer/rich, TOML (no configuration file here), pathlib or tempfile module; each costs milliseconds of
    a start-up that is meant to stay well inside its budget (0.25 s: bench/startup.py). JSON (the cache is plain data), `regex` (patterns are compiled
    on first use, with its own imports: threading, string) and typing are loaded since issue 29."""
    paste = "\n".join([
        "Traceback (most recent call last):",
        '  File "train.py", line 57, in <module>',
        "    out, h = model(x)",
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED",
    ])
    log = tmp_path / "train.log"
    log.write_text(paste)
    argv = [sys.executable, "-X", "importtime", "-m", "cudnn_doctor", "diagnose", "-" if how == "stdin" else str(log)]
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(argv, input=paste, capture_output=True, text=True, env=env, timeout=120)
    assert "CUDNN_STATUS_NOT_SUPPORTED" in proc.stdout, proc.stdout + proc.stderr
    loaded = {m.group(1) for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", proc.stderr, re.M)}
    assert "cudnn_doctor.scan" in loaded  # the diagnosis did run in this process
    unused = {"yaml", "jsonschema", "packaging", "hashlib", "pathlib", "tempfile", "cudnn_doctor.env.local", "_hashlib", "hmac", "hyperscan", "gzip", "typer", "rich", "tomllib", "tomli"}
    assert not unused & loaded, unused & loaded


@pytest.mark.parametrize("spelling", ["x.log", "./x.log", "d/../x.log", "d//y.log", "d/./y.log", "{tmp}/x.log", "{tmp}//d/y.log", "d/"])
def test_file_arguments_are_named_as_path_prints_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str) -> None:
    """A plain file argument skips pathlib (start-up); its source is named exactly as Path names the others."""
    from cudnn_doctor.read.sources import sources_from_args

    (tmp_path / "d").mkdir()
    (tmp_path / "x.log").write_text("a\n")
    (tmp_path / "d" / "y.log").write_text("b\n")
    monkeypatch.chdir(tmp_path)
    arg = spelling.format(tmp=tmp_path)
    sources, problems = sources_from_args([arg], None)
    assert not problems and sources
    expected = [str(p) for p in sorted(Path(arg).rglob("*"))] if Path(arg).is_dir() else [str(Path(arg))]
    assert [s.name for s in sources] == expected
    assert all(s.path == s.name and s.size == 2 for s in sources)


def test_signature_paths_keep_path_order(tmp_path: Path) -> None:
    """The cache key lists the base as strings (no Path per file); the order is still Path's, component by
    component, so a folder's files sort before a sibling folder whose name sorts after it as a string."""
    from cudnn_doctor.kb.load import signature_files, signature_paths

    for rel in ("a/z.yaml", "a-b/x.yaml", "a/b/c.yaml", "A/y.yml", "b.yaml", "a.b/q.yaml", "_skip/x.yaml", "a/_x.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("id: x\n")
    for root in (tmp_path, ROOT / "signatures"):
        expected = sorted((p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
                           and not any(part.startswith(("_", ".")) for part in p.relative_to(root).parts)),
                          key=lambda p: tuple(map(os.path.normcase, p.parts)))
        assert signature_paths(root) == [str(p) for p in expected]
        assert signature_files(root) == expected
