"""Dense logs: the shortcuts that keep a log full of cuDNN/LSTM mentions cheap must reach the matcher through
the reader (presentations) and must not change a diagnosis.

* The environment probes' answers (a declined shape, RETIRE) and their ``shape_free`` flag survive the
  reader's line-number mapping (they were once dropped there, so every probe line cost a regex search).
* Confirmation words (match.Confirm): on a big input a candidate line of a signature is kept only where the
  words of one alternative of its regex are around it. Run over the whole base with the threshold at 0 (every
  input confirmed), every example gives what it gives unconfirmed, and counter-examples stay negative.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cudnn_doctor import diagnose
from cudnn_doctor.env.detect import EnvironmentCollector
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.load import Catalog
from cudnn_doctor.match import Matcher, RawMatch, confirm_words
from cudnn_doctor.match import evidence as evidence_mod
from cudnn_doctor.match import matcher as match_mod  # the module that reads CONFIRM_FROM
from cudnn_doctor.rank import findings as rank
from test_dense import dense_log  # tests/ is on sys.path (rootdir-based imports)

CATALOG = load_catalog(use_cache=False, use_env=False)
CORPUS = sorted((Path(__file__).parent / "fixtures" / "corpus").glob("*.log"))


# ------------------------------------------------------------------------------------------------ the probes


def test_reader_keeps_the_probes_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a dense log, a detector's regex runs once per new line *shape*, not once per line naming cuDNN."""
    calls = {"n": 0}
    real = EnvironmentCollector._make_handler

    def counting(self, d):  # type: ignore[no-untyped-def]
        handle = real(self, d)

        def wrapped(line: str, lineno: int):  # type: ignore[no-untyped-def]
            calls["n"] += 1
            return handle(line, lineno)

        return wrapped

    monkeypatch.setattr(EnvironmentCollector, "_make_handler", counting)
    text = dense_log(6000)
    d = diagnose(text, catalog=CATALOG)
    probe_lines = sum(1 for line in text.splitlines() if "version" in line.lower() or "cudnn" in line.lower())
    assert probe_lines > 2000
    assert d.environment.get("cudnn")
    assert calls["n"] < probe_lines / 3, f"{calls['n']} probe calls for {probe_lines} probe lines"


# ------------------------------------------------------------------------------------------ confirmation words


def test_confirm_words_per_alternative() -> None:
    got = confirm_words(r"(?:Detected unsupported operations on (?P<d>XLA_\w+): CudnnRNN\w*|No OpKernel was registered for 'CudnnRNN\w*')", (), ("CudnnRNN",))
    assert got is not None and not got.icase
    assert got.branches == ((b"unsupported", b"operations"), (b"registered", b"OpKernel"))


def test_confirm_words_ignore_case_verbose_and_prefilter() -> None:
    got = confirm_words(r"cudnn \ status \ not \ supported \s+ in \ cudnnRNNForward", ("IGNORECASE", "VERBOSE"), ())
    assert got is not None and got.icase
    assert got.branches == ((b"cudnnrnnforward", b"supported"),)
    # every word is already in the prefilter literal: nothing to confirm
    assert confirm_words(r"CUDNN_STATUS_MAPPING_ERROR", (), ("CUDNN_STATUS_MAPPING_ERROR",)) is None
    # an alternative without a word of its own: a candidate could never be dropped
    assert confirm_words(r"CudnnRNNV3 failed|CudnnRNN", (), ("CudnnRNN",)) is None


def test_confirm_words_only_from_required_parts() -> None:
    got = confirm_words(r"Expected hidden(?: size)? (?:mismatch|dimension)s?(?:, got \d+)? for LSTMCell", (), ("Expected hidden",))
    assert got is not None
    assert got.branches == ((b"LSTMCell",),)  # optional and alternative words are not required
    assert confirm_words(r"(?<=foo)bar(?=bazzz)quux", (), ()) is None  # lookarounds give nothing; 'quux' < 5
    assert confirm_words(r"\p{L}+ unparsable by the standard parser", (), ()) is None


def test_dense_literal_with_its_message_elsewhere_is_not_matched_on_each_mention() -> None:
    """Thousands of ``CudnnRNNV3`` op traces and a signature whose literal is only 'CudnnRNN' (as
    keras/cause-bidirectional-drops-use-cudnn's was): it needs 'Detected unsupported operations' and is searched
    nowhere (its words are absent), and one near miss says why."""
    import dataclasses

    noise = "\n".join(f"2024-05-14T09:00:{i % 60:02d}Z Executing op CudnnRNNV3 in device /job:localhost/replica:0/task:0/device:GPU:0 step {i}" for i in range(4000))
    (sig,) = [s for s in CATALOG.signatures if s.id == "keras/cause-bidirectional-drops-use-cudnn"]
    assert "CudnnRNN" not in sig.prefilter  # the shipped one no longer fires on op traces
    weak = dataclasses.replace(sig, prefilter=("CudnnRNN",))
    m = Matcher(Catalog(signatures=[weak, *(s for s in CATALOG.signatures if s is not sig)], evidence=CATALOG.evidence))
    searched: list[str] = []
    real = m._scan_run

    def spy(idxs, *a, **k):  # type: ignore[no-untyped-def]
        searched.extend(m.sigs[i].id for i in idxs)
        return real(idxs, *a, **k)

    m._scan_run = spy  # type: ignore[method-assign]
    found, misses = m.scan_text(noise)
    assert len(noise) > match_mod.CONFIRM_FROM
    assert found == [] and searched == []
    assert any("words of its message" in miss.reason for miss in misses)


def test_big_log_same_with_and_without_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus log planted in a dense log above the confirmation threshold: the same findings, lines and
    counts as when no candidate line is confirmed."""
    noise = dense_log(3500).splitlines()
    texts = []
    for path in CORPUS:
        log = path.read_text(encoding="utf-8").partition("\n")[2]
        texts.append("\n".join([*noise[:1200], *log.splitlines(), *noise[1200:]]))
    assert min(map(len, texts)) > match_mod.CONFIRM_FROM

    def findings() -> list[list[tuple[str, int, int, int]]]:
        return [[(f.id, f.first.line, f.last.line, f.count) for f in diagnose(t, catalog=CATALOG).findings] for t in texts]

    confirmed = findings()
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 1 << 62)
    assert findings() == confirmed
    assert sum(map(len, confirmed)) > len(texts)


def test_confirmation_same_around_few_or_many_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Confirm words looked for around each candidate (few of them) or located in the whole window first
    (many): the same lines kept, so the same findings, lines and counts."""
    noise = dense_log(3500).splitlines()
    texts = [
        "\n".join([*noise[:1200], *path.read_text(encoding="utf-8").partition("\n")[2].splitlines(), *noise[1200:]])
        for path in CORPUS
    ]

    def findings() -> list[list[tuple[str, int, int, int]]]:
        return [[(f.id, f.first.line, f.last.line, f.count) for f in diagnose(t, catalog=CATALOG).findings] for t in texts]

    monkeypatch.setattr(match_mod, "FEW_CANDIDATES", 1 << 30)
    around = findings()
    monkeypatch.setattr(match_mod, "FEW_CANDIDATES", 0)
    assert findings() == around
    assert sum(map(len, around)) > len(texts)


@pytest.fixture
def confirm_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)


def _top(text: str) -> str | None:
    d = diagnose(text, catalog=CATALOG)
    return d.findings[0].id if d.findings else None


def test_whole_base_same_with_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [(s, ex) for s in CATALOG.signatures for ex in s.examples]
    plain = {id(ex): _top(ex.text) for _, ex in cases}
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    differ = [f"{s.id} [{ex.name}]: {got} instead of {plain[id(ex)]}" for s, ex in cases if (got := _top(ex.text)) != plain[id(ex)]]
    assert len(cases) > 500
    assert differ == []


def test_counter_examples_stay_negative_with_confirmation(confirm_everything: None) -> None:
    wrong = []
    for sig in CATALOG.signatures:
        for ex in sig.counter_examples:
            d = diagnose(ex.text, catalog=CATALOG)
            if sig.id in {f.id for f in d.findings}:
                wrong.append(f"{sig.id} [{ex.name}]")
    assert wrong == []


def test_corpus_same_with_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    logs = [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    plain = [[f.id for f in diagnose(log, catalog=CATALOG).findings] for log in logs]
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    assert [[f.id for f in diagnose(log, catalog=CATALOG).findings] for log in logs] == plain


# ------------------------------------------------------------------------------------ absent context evidence


def test_alternative_literals_read_hoisted_prefixes_and_cjk() -> None:
    from cudnn_doctor.match import alternative_literals

    assert alternative_literals(r"\btch(?:-rs)?\b|\btch::nn\b|\bcargo (?:run|test)\b", ("IGNORECASE",)) == ("tch", "tch::nn", "cargo ")
    assert alternative_literals(r"torch[/\\]jit[/\\]_script\.py|torch[/\\]jit[/\\]_recursive\.py", ("IGNORECASE",)) == ("_script.py", "_recursive.py")
    assert alternative_literals("多卡", ("IGNORECASE",)) == ("多卡",)
    assert alternative_literals(r"\d+\s*MB|GPU", ("IGNORECASE",)) is None  # an alternative without a literal


def test_absent_sees_through_colours() -> None:
    """A literal split by colour codes in the raw bytes is in the normalized text: never called absent."""
    from cudnn_doctor.match.lines import _Lines

    m = Matcher(CATALOG)
    data = "\n".join(["noise line"] * 5 + ["model = nn.\x1b[1;34mData\x1b[0mParallel(model)", "noise"]).encode()
    lines = _Lines(data, data.count(b"\n") + 1)
    assert not m.evidence.absent((r"\bnn\.DataParallel\b",), lines, 0, 6)
    assert m.evidence.absent((r"\bnn\.DataParallel\b",), lines, 0, 4)
    assert m.evidence.absent((r"\bWeightDrop\b|weight_drop\.py",), lines, 0, 6)


def test_whole_base_same_without_the_absent_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Context groups said absent change nothing: every example, counter-example and corpus log gives the same
    findings when every group is searched in the normalized lines."""
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]

    def ids() -> list[list[str]]:
        return [[f.id for f in diagnose(t, catalog=CATALOG).findings] for t in texts]

    fast = ids()
    monkeypatch.setattr(match_mod._Evidence, "absent", lambda self, items, lines, lo, hi: False)
    monkeypatch.setattr(match_mod.Matcher, "_group_absent", lambda self, items, lines, lo, hi: False)
    assert ids() == fast


def _hyperscan() -> bool:
    return Matcher(CATALOG).prefilter.engine == "hyperscan"


@pytest.mark.skipif(not _hyperscan(), reason="the big-window path reads hyperscan's word presence")
def test_big_window_evidence_sees_through_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over a big window the context literals come from the prefilter's pass and the clean pieces of the window
    made around the checks: a literal split by colour codes is still found, in the right line, and nothing else is."""
    from cudnn_doctor.match import prefilter as prefilter_mod
    from cudnn_doctor.match.lines import _Lines

    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    m = Matcher(CATALOG)
    rows = ["noise line"] * 5 + ["model = nn.\x1b[1;34mData\x1b[0mParallel(model)", "noise", "import higher", "x"]
    data = "\n".join(rows).encode()
    for _ in range(2):  # the first window makes the prefilter that reports words
        lines = _Lines(data, data.count(b"\n") + 1)
        m._prefilter_hits(lines, 0, len(data))
    assert lines.memo["scanned"] is not None
    dp = (r"\bnn\.DataParallel\b|\bDataParallel\(",)
    assert not m.evidence.absent(dp, lines, 0, 6)
    assert m.evidence.absent(dp, lines, 0, 4)
    assert m.evidence.absent(dp, lines, 6, 8)
    assert m.evidence.absent((r"\bWeightDrop\b|weight_drop\.py",), lines, 0, 8)
    assert m.evidence.lines_with((*dp, r"\bimport higher\b"), lines, 0, 8) == [5, 7]
    assert m.evidence.lines_with(dp, lines, 6, 8) == []


@pytest.mark.skipif(not _hyperscan(), reason="the big-window path reads hyperscan's word presence")
def test_whole_base_same_on_the_big_window_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every example, counter-example and corpus log read as a big window (hyperscan's word presence, clean
    pieces of the window for the context evidence, confirmation words) gives the findings it gives as a paste,
    with pieces of any size."""
    from cudnn_doctor.match import prefilter as prefilter_mod

    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]

    def ids() -> list[list[tuple[str, int, int]]]:
        return [[(f.id, f.first.line, f.count) for f in diagnose(t, catalog=CATALOG).findings] for t in texts]

    plain = ids()
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    calls = []
    real = match_mod._Evidence._present
    monkeypatch.setattr(
        match_mod._Evidence, "_present", lambda self, lits, lines, piece=None: calls.append(1) or real(self, lits, lines, piece)
    )
    assert ids() == plain
    assert calls  # the big-window path ran
    # the clean pieces as small as they come: every context check crosses pieces, made back and forth
    monkeypatch.setattr(evidence_mod, "PIECE_BYTES", 1)
    monkeypatch.setattr(evidence_mod, "PIECE_BYTES_MAX", 2)
    assert ids() == plain


def test_clean_pieces_cover_any_span_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clean pieces of a window, made on demand in whatever order the context checks ask, give each span
    the bytes a clean copy of just those lines has, colours and control bytes deleted (none to delete in a
    window without them) before they are lower-cased, as normalization deletes them; and place a literal's lines as a split of the piece does."""
    import itertools
    import random

    from cudnn_doctor.match.lines import _Lines

    rnd = random.Random(7)
    # 'up\x1bMdown': a two-byte escape normalization deletes whole (not once lower-cased: then only ESC)
    words = ["Noise", "\x1b[1;31mRed\x1b[0m", "DataParallel", "x\x07y", "", "LSTM", "\xc2\x9b31mC1", "up\x1bMdown"]
    rows = [" ".join(rnd.choice(words) for _ in range(rnd.randrange(0, 6))) for _ in range(400)]
    coloured = "\n".join(rows).encode()
    plain = coloured.replace(b"\x1b", b"").replace(b"\x07", b"").replace(b"\xc2\x9b", b"")  # nothing to delete
    for (grow, most), data in itertools.product(((1, 2), (64, 4096), (4096, 1 << 20)), (coloured, plain)):
        monkeypatch.setattr(evidence_mod, "PIECE_BYTES", grow)
        monkeypatch.setattr(evidence_mod, "PIECE_BYTES_MAX", most)
        lines = _Lines(data, data.count(b"\n") + 1)
        cover = evidence_mod._Cover()
        for _ in range(300):
            lo = rnd.randrange(0, lines.count)
            hi = min(lines.count - 1, lo + rnd.randrange(0, 120))
            segments = cover.segments(lines, lo, hi)
            got = b"\n".join(p.clean[slice(*p.span(f, t))] for p, f, t in segments)
            assert got == evidence_mod._delete_joinable(lines.region(lo, hi)).lower()
            assert all(p.last == p.first + p.clean.count(b"\n") for p in cover.pieces)  # counted where it grew
            # the lines of a literal, placed by counting from either end of a piece or by its line ends
            for piece, _f, _t in segments:
                for lit in (b"lstm", b"red", b"dataparallel", b"noise"):
                    want = [piece.first + i for i, row in enumerate(piece.clean.split(b"\n")) if lit in row]
                    assert piece.lines_of(lit) == want, (lit, piece.first)
            firsts = [p.first for p in cover.pieces]
            assert firsts == sorted(firsts) == cover.firsts
            assert all(a.last < b.first for a, b in zip(cover.pieces, cover.pieces[1:], strict=False))
        assert len(cover.pieces) > 1 if grow < 4096 else len(cover.pieces) < 100


def test_joinable_bytes_found_by_hyperscan_as_by_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """_has_joinable's hyperscan pass (data of JOINABLE_PASS_FROM bytes or more, once a big window loaded
    hyperscan) says what deleting the joinable bytes and comparing lengths says, for each such byte alone."""
    import random

    pytest.importorskip("hyperscan")
    assert evidence_mod._joinable_in(b"") is False  # compiled: the pass runs
    passes: list[bytes] = []
    real = evidence_mod._joinable_in
    monkeypatch.setattr(evidence_mod, "_joinable_in", lambda data: passes.append(data) or real(data))
    rnd = random.Random(3)
    base = bytes(rnd.choice(b"abc XYZ 0123\t\r\n\xc3\xa9\xe2\x96\x88") for _ in range(evidence_mod.JOINABLE_PASS_FROM))
    cases = [base, base + b"\xc2\x9b", base + b"\x9b"]
    cases += [base[:i] + bytes([b]) + base[i:] for b in range(256) for i in (0, rnd.randrange(len(base)))]
    for data in cases:
        truth = len(data.translate(None, evidence_mod._JOINABLE_BYTES)) != len(data) or b"\xc2\x9b" in data
        assert evidence_mod._has_joinable(data) == truth, data[:8]
    assert len(passes) > 200  # the hyperscan pass said it (data without ESC nor C1 CSI)


# ------------------------------------------------------------------------------------------ classes of signatures


def _replicated(times: int) -> Catalog:
    """The base with each signature copied ``times`` times under another id, copies interleaved with the rest."""
    import dataclasses

    sigs = [dataclasses.replace(s, id=f"r{k}-{s.id}") if k else s for k in range(times) for s in CATALOG.signatures]
    return Catalog(signatures=sigs, evidence=CATALOG.evidence)


def _scanned(catalog: Catalog, text: str) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for m, miss in Matcher(catalog).scan_blocks([text], "<t>"):
        if m is not None:
            out.append(("match", m.sig.id, m.line, m.end_line, m.text, m.evidence, m.supported, list(m.before)))
        elif miss is not None:
            out.append(("miss", miss.sig.id, miss.line, miss.reason))
    return out


@pytest.mark.parametrize("big", [False, True], ids=["paste", "big-window"])
def test_a_class_of_equal_signatures_gives_what_each_gives_alone(monkeypatch: pytest.MonkeyPatch, big: bool) -> None:
    """Signatures with one regex, window and literals are collected and confirmed as one class: over a base
    where every signature has two copies (and the six that share the flatten_parameters warning's regex), every
    example, counter-example and corpus log yields the same matches and near misses, in the same order, as when
    each signature is its own class; and the classes are really formed."""
    from cudnn_doctor.match import prefilter as prefilter_mod

    if big:
        if not _hyperscan():
            pytest.skip("the big-window path reads hyperscan's word presence")
        monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
        monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    catalog = _replicated(3)
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    assert len(Matcher(catalog).members) <= len(CATALOG.signatures)
    classed = [_scanned(catalog, t) for t in texts]
    monkeypatch.setattr(match_mod, "CLASSES", False)
    assert len(Matcher(catalog).members) == len(catalog.signatures)
    one_by_one = [_scanned(catalog, t) for t in texts]
    assert sum(len(x) for x in one_by_one) > 3 * len(texts)
    assert [i for i, (a, b) in enumerate(zip(classed, one_by_one, strict=True)) if a != b] == []


# ------------------------------------------------------------------------------- many matches of one line


def _confidence_as_written(m: RawMatch) -> float:
    """rank.confidence_of as the ranking defines it, term by term."""
    sig, score = m.sig, 0.7
    if sig.context.require_any:
        score += 0.15
    if m.supported:
        score += 0.1
    if sig.priority >= 50 and not sig.context.require_any:
        score += 0.1
    if m.captures and all(v is not None for v in m.captures.values()):
        score += 0.04
    if m.cut is not None:
        score -= rank.CUT_PENALTY
    return round(min(score, 0.99), 2)


def test_confidence_from_a_kept_base_is_the_ranking_s_formula() -> None:
    """Every signature's confidence base is kept (thousands of matches of one line are ranked per block), and
    each match still scores exactly as the formula says; a signature changed into a new object is scored anew."""
    import dataclasses

    captures: list[dict[str, str | None]] = [{}, {"a": "1"}, {"a": None}]
    for sig in CATALOG.signatures:
        for supported in (False, True):
            for caps in captures:
                for cut in (None, {"read": "x"}):
                    m = RawMatch(sig, "s", 1, 1, "t", dict(caps), "", [], supported, [], cut)
                    assert rank.confidence_of(m) == _confidence_as_written(m), sig.id
    sig = next(s for s in CATALOG.signatures if s.priority >= 50 and not s.context.require_any)
    m = RawMatch(sig, "s", 1, 1, "t", {}, "", [], False, [])
    before = rank.confidence_of(m)
    m.sig = dataclasses.replace(sig, priority=10)
    rank._BASES[id(m.sig)] = (sig, 0.0)  # another object's base under the same id (an id used again)
    assert rank.confidence_of(m) == _confidence_as_written(m) == round(before - 0.1, 2)


def test_a_line_s_span_is_mapped_as_its_lines_are() -> None:
    """LineMap.span (the matches of one line come together: mapped once) gives what line() and end_line() give,
    for lines of joined (presented) segments and plain ones, as blocks are added."""
    import random

    from cudnn_doctor.match.reading import LineMap

    rnd = random.Random(5)
    lmap, new_last = LineMap(), 0
    for _ in range(200):
        count = rnd.randrange(1, 20)
        if rnd.random() < 0.5:
            lmap.add(count, count, None)
        else:
            origin = tuple(sorted(rnd.sample(range(count * 2), count)))
            lmap.add(count, count * 2, origin)
        new_last += count
        for _ in range(5):
            line = rnd.randrange(max(1, new_last - 40), new_last + 1)
            end = rnd.randrange(line, new_last + 1)
            for _ in range(2):  # asked again: the kept answer
                assert lmap.span(line, end) == (lmap.line(line), lmap.end_line(end))


def test_one_ranking_key_decides_a_cluster_s_winner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The most specific signature (model.specificity: priority, then scope) wins its cluster, then confidence;
    and a change to the key reaches every cluster (there is no second, faster copy of it to forget)."""
    import dataclasses

    from cudnn_doctor import model

    base = CATALOG.signatures[:3]
    sigs = [dataclasses.replace(base[0], priority=78, scope="cudnn"), dataclasses.replace(base[1], priority=60, scope="rnn"),
            dataclasses.replace(base[2], priority=60, scope="cuda")]
    group = [RawMatch(sig, "s", 3, 3, "t", {}, "", [], False, []) for sig in sigs]
    ((best, related),) = rank.cluster(group)
    assert best.sig is sigs[0] and related == sorted({sigs[1].id, sigs[2].id} - {sigs[0].id})
    monkeypatch.setattr(rank, "specificity", lambda sig: (sig.scope == "rnn", sig.priority))
    ((best, _),) = rank.cluster(group)
    assert best.sig is sigs[1]
    assert rank.order([]) == [] and model.specificity(sigs[1]) == (60, 2)


