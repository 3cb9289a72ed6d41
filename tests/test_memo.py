"""What the Matcher remembers across windows changes nothing but the time.

* A line-local regex's matches, by (pattern, normalized line): a warning repeated 10,000 times is searched once
  per pattern (Matcher._search_lines).
* A context decision, by the context's items and the normalized lines around the match where one of them
  matches (Matcher._decide_once): each occurrence with the same such lines gets the same decision, one with
  other evidence nearby (a DataParallel line, a weight-drop wrapper, a colour code splitting a word, another
  rank's line) gets its own.

Each is checked against the Matcher with nothing remembered (``_decide`` over the lines itself), on a log where
the same warnings repeat with varied evidence around them, read in small blocks (many windows) as a big log and
as a paste, and over the whole base on the big-window path.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import Matcher
from cudnn_doctor.match import matcher as match_mod  # the module that reads the memo sizes
from cudnn_doctor.match import prefilter as prefilter_mod
from cudnn_doctor.match.lines import first_per_line
from cudnn_doctor.read import sources as input_mod
from cudnn_doctor.read.sources import text_source
from cudnn_doctor.report import build_report
from cudnn_doctor.scan import Options, diagnose_sources

CATALOG = load_catalog(use_cache=False, use_env=False)
CORPUS = sorted((Path(__file__).parent / "fixtures" / "corpus").glob("*.log"))

FLATTEN = (
    "/pytorch/aten/src/ATen/native/cudnn/RNN.cpp:1266: UserWarning: RNN module weights are not part of single "
    "contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing "
    "memory usage. To compact weights again call flatten_parameters()."
)
HALF = "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM"
# evidence that some of the signatures checked at the warning look for, planted near some occurrences only
EVIDENCE = [
    "model = nn.DataParallel(model)",
    "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/parallel/data_parallel.py\", line 171, in forward",
    "Applying weight drop of 0.5 to weight_hh_l0",
    "model = nn.\x1b[1;34mData\x1b[0mParallel(model)",  # a colour code inside the word
    "import higher",
    "with higher.innerloop_ctx(model, opt) as (fmodel, diffopt):",
    "scripted = torch.jit.script(model)",
    "[rank1]: model = nn.DataParallel(model)",  # another rank's line
    "prefetch queue 7/64, 31.5 batches/s",  # holds 'tch' (a literal of the libtorch cause) without its word
    "cargo run --release",
    "  File \"/usr/lib/python3/site-packages/torch/func/_functional_call.py\", line 40, in functional_call",
    "Epoch 1:  45%|████      | 450/1000\rimport higher",  # the line shows the last segment only
    "import higher\rEpoch 1:  46%|████      | 460/1000",  # ... which is not the evidence here
    "\x1b[31mweight_drop.py\x1b[0m: applying",
    "[rank1]: Applying weight drop of 0.3 to weight_hh_l0",
]
NOISE = [
    "Epoch {n} step {n}/5000 loss=0.{n}",
    "\x1b[32mINFO\x1b[0m train.py:214 saving checkpoint to ckpt/step_{n}.pt",
    "\x1b[36m[data]\x1b[0m prefetch queue {n}/64, 12.{n} batches/s",
    "+ python -m torch.distributed.run --nproc_per_node=2 train.py --epochs 50",
    "  src/model/tokenizer.py:{n}: DeprecationWarning: torch.cuda.amp.GradScaler is deprecated",
    "torch.backends.cudnn.benchmark = True",
]


def repeated_log(occurrences: int = 240, seed: int = 11) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    for k in range(occurrences):
        for _ in range(rng.randrange(20, 130)):
            out.append(rng.choice(NOISE).format(n=rng.randrange(1000)))
        if rng.random() < 0.35:  # evidence somewhere in the 100 lines around the next occurrence
            at = len(out) - rng.randrange(0, 90)
            out.insert(max(0, at), rng.choice(EVIDENCE))
        prefix = rng.choice(("", "", "[rank0]: ", "[rank1]: "))
        out.append(prefix + (FLATTEN if k % 7 else HALF))
        for _ in range(rng.randrange(0, 25)):
            out.append(rng.choice(NOISE).format(n=rng.randrange(1000)))
        if rng.random() < 0.2:
            out.append(rng.choice(EVIDENCE))
    return "\n".join(f"2024-05-14T09:{i // 600 % 60:02d}:{i % 60:02d}.{i:07d}Z {line}" for i, line in enumerate(out)) + "\n"


def _report(text: str, *, block: int | None = None) -> dict[str, object]:
    with pytest.MonkeyPatch.context() as m:
        if block is not None:
            m.setattr(input_mod, "BLOCK_BYTES", block)
        record = build_report(diagnose_sources([text_source(text, "log")], catalog=CATALOG, options=Options(jobs=1)))
    return {k: record[k] for k in ("findings", "near_misses", "below_threshold", "warnings")}


def _forget(m: pytest.MonkeyPatch) -> None:
    """Nothing remembered across windows: each line searched, each decision made over its own lines, and every
    group searched and checked where it could give nothing (Matcher._nothing_to_give)."""
    m.setattr(match_mod, "MEMO_TEXT", -1)
    m.setattr(Matcher, "_decide_once", lambda self, sig, exclude, span, stream, win: None)
    m.setattr(Matcher, "_nothing_to_give", lambda self, idxs, run, win: False)


@pytest.fixture(scope="module")
def log() -> str:
    return repeated_log()


@pytest.mark.parametrize("block", [None, 64 << 10], ids=["one-window", "many-windows"])
def test_remembered_decisions_change_nothing(log: str, block: int | None) -> None:
    fresh = _report(log, block=block)
    with pytest.MonkeyPatch.context() as m:
        _forget(m)
        plain = _report(log, block=block)
    assert fresh == plain
    # the occurrences are decided differently for the evidence near them: the log tests something
    ids = {f["id"] for f in plain["findings"]}  # type: ignore[index, union-attr]
    assert {"pytorch/cause-dataparallel-replica-weights-not-flat", "pytorch/cause-weight-drop-wrapper-unflattens-rnn"} <= ids
    assert {"pytorch/cause-functional-fast-weights-rnn-not-flat", "pytorch/cause-torchscript-moved-after-scripting"} <= ids


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_remembered_decisions_change_nothing_on_the_big_window_path(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with the clean pieces and hyperscan's word presence read from the first window on, over
    logs of other seeds (evidence at other places, in other streams, behind colour codes and CRs)."""
    log = repeated_log(160, seed)
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    fresh = _report(log, block=64 << 10)
    with pytest.MonkeyPatch.context() as m:
        _forget(m)
        assert _report(log, block=64 << 10) == fresh


@pytest.mark.parametrize("seed", [11, 14])
def test_groups_that_can_give_nothing_are_skipped_as_their_checks_would_rule(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the causes behind the repeated warning have spent their near misses, an occurrence without their
    evidence (or with what one of them excludes: the warning's own 'UserWarning: RNN module weights' for the
    libtorch cause) skips their search and checks: the same report as searching and checking each, and skips
    happened for every such cause, while occurrences with evidence nearby still made their findings."""
    log = repeated_log(200, seed)
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    skipped: dict[str, int] = {}
    real = Matcher._nothing_to_give

    def counting(self, idxs, run, win):  # type: ignore[no-untyped-def]
        got = real(self, idxs, run, win)
        if got:
            sid = self.sigs[idxs[0]].id
            skipped[sid] = skipped.get(sid, 0) + 1
        return got

    with pytest.MonkeyPatch.context() as m:
        m.setattr(Matcher, "_nothing_to_give", counting)
        fresh = _report(log, block=64 << 10)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Matcher, "_nothing_to_give", lambda self, idxs, run, win: False)
        assert _report(log, block=64 << 10) == fresh
    causes = {
        "pytorch/cause-dataparallel-replica-weights-not-flat",
        "pytorch/cause-functional-fast-weights-rnn-not-flat",
        "pytorch/cause-libtorch-binding-rnn-never-flattened",
    }
    assert causes <= {sid for sid, n in skipped.items() if n > 20}, skipped
    ids = {f["id"] for f in fresh["findings"]}  # type: ignore[index, union-attr]
    assert {"pytorch/cause-dataparallel-replica-weights-not-flat", "pytorch/cause-functional-fast-weights-rnn-not-flat"} <= ids


def test_whole_base_same_with_nothing_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every example, counter-example and corpus log, as a paste and on the big-window path."""
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]

    def ids() -> list[list[tuple[str, int, int, tuple[str, ...]]]]:
        from cudnn_doctor import diagnose

        return [
            [(f.id, f.first.line, f.count, tuple(f.evidence)) for f in diagnose(t, catalog=CATALOG).findings]
            for t in texts
        ]

    for big in (False, True):
        with monkeypatch.context() as m:
            if big:
                m.setattr(match_mod, "CONFIRM_FROM", 0)
                m.setattr(prefilter_mod, "SMALL_TEXT", -1)
            fresh = ids()
            _forget(m)
            assert ids() == fresh, f"big window: {big}"


def test_a_repeated_line_is_searched_once_per_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    searches: list[str] = []
    proxies: dict[int, object] = {}
    real_compile = match_mod.compile_pattern

    class Counting:
        def __init__(self, pattern: object) -> None:
            self.pattern = pattern

        def finditer(self, text: str, *args: object, **kwargs: object) -> object:
            searches.append(text)
            return self.pattern.finditer(text, *args, **kwargs)  # type: ignore[attr-defined]

    def compile_counting(source: str, flags: tuple[str, ...] = ()) -> object:
        pattern = real_compile(source, flags)
        return proxies.setdefault(id(pattern), Counting(pattern))

    monkeypatch.setattr(match_mod, "compile_pattern", compile_counting)
    m = Matcher(CATALOG)
    text = "\n".join(["noise"] * 50 + [FLATTEN] + ["noise"] * 50)
    for _ in range(3):  # three windows holding the same line
        m.scan_text(text)
    on_it = [t for t in searches if t.endswith("flatten_parameters().")]
    patterns = {id(p) for p in proxies.values()}
    assert on_it and len(on_it) <= len(patterns)  # once per pattern, not once per window
    # a line longer than MEMO_TEXT is searched each time and never kept
    long_line = FLATTEN + " x" * match_mod.MEMO_TEXT
    counts = []
    for _ in range(2):
        searches.clear()
        m.scan_text(long_line)
        counts.append(searches.count(long_line))
    assert counts[0] > 0 and counts[1] == counts[0]
    assert not [key for key in m._searched if key[1] == long_line]


def test_the_memos_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)  # the big-window path: decisions are remembered there
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    monkeypatch.setattr(match_mod, "SEARCHED_MEMO", 4)
    monkeypatch.setattr(match_mod, "DECIDED_MEMO", 4)
    m = Matcher(CATALOG)
    sizes = []
    for i in range(40):
        m.scan_text(f"step {i}\n{FLATTEN} {i}\nmodel = nn.DataParallel(model{i})\n")
        sizes.append((len(m._searched), len(m._decided), len(m._relevant_memo)))
    assert max(sizes) <= (4, 4, 4) and min(sizes[5:]) >= (1, 1, 1)
    # evidence lines too long to keep as a key: the decision is made, not remembered
    m = Matcher(CATALOG)
    long_line = "model = nn.DataParallel(model)  # " + "x" * match_mod.MEMO_TEXT
    for text in (f"step\n{FLATTEN}\nmodel = nn.DataParallel(model)\n", f"{long_line}\n{FLATTEN}\n"):
        matches, _ = m.scan_text(text)
        assert matches
    assert m._decided and all(sum(map(len, key[3])) <= match_mod.MEMO_TEXT for key in m._decided)
    assert not any(long_line in text for key in m._decided for text in key[3])


def test_a_paste_and_the_pure_python_path_decide_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without clean pieces (a paste, or no hyperscan) nothing is decided from memory: _decide's absence
    checks cost less there than finding the evidence lines first."""
    m = Matcher(CATALOG)
    m.scan_text(f"step\n{FLATTEN}\nmodel = nn.DataParallel(model)\n")
    assert not m._decided


def test_literal_conditions_read_every_alternative() -> None:
    from cudnn_doctor.match.evidence import _evidence_conditions, _evidence_literals
    from cudnn_doctor.match.regexinfo import alternative_runs

    assert alternative_runs(r"torch[/\\]func[/\\]|torch\.func\.", ("IGNORECASE",)) == (("torch", "func"), ("torch.func.",))
    parts = (r"torch[/\\]func[/\\]|torch\.func\.", r"\bimport higher\b")
    lits = _evidence_literals(parts)
    assert lits == (b"torch", b"torch.func.", b"import higher")
    conds = _evidence_conditions(parts, lits)
    # 'torch' alone satisfies neither alternative: 'func' or 'torch.func.' is needed with it
    assert conds == {b"torch": ((b"torch", b"func"), (b"torch.func.",)), b"torch.func.": None, b"import higher": None}


def _at_word_start(low: bytes, lit: bytes) -> bool:
    found: list[int] = []
    first_per_line(low, lit, found, word_start=True)
    return bool(found)


def test_literals_at_a_word_start() -> None:
    from cudnn_doctor.match.evidence import _evidence_literals, _evidence_word_starts

    parts = (r"\btch(?:-rs)?\b|\btch::nn\b|\bcargo (?:run|test)\b", r"\bnn\.DataParallel\b|\bDataParallel\(", r"torch[/\\]func[/\\]")
    lits = _evidence_literals(parts)
    assert b"tch" in lits and b"dataparallel(" in lits
    # 'dataparallel(' is a head; 'nn.dataparallel' is too; 'torch' follows no \b
    assert _evidence_word_starts(parts, lits) == {b"tch", b"tch::nn", b"cargo ", b"nn.dataparallel", b"dataparallel("}
    # a literal that one of its alternatives holds past its start is not one ('tch' inside 'batch_first')
    assert _evidence_word_starts((r"\btch\b", r"\bbatch_first\b"), (b"tch", b"batch_first")) == {b"batch_first"}
    assert _at_word_start(b"cargo run --release; tch 0.13", b"tch")
    assert not _at_word_start(b"prefetch queue 7/64, 31.5 batches/s", b"tch")
    assert _at_word_start(b"x\xc3\xa9tch", b"tch")  # after a non-ASCII byte: may be a non-word character
    found: list[int] = []
    first_per_line(b"batches tch\nmatch\n(tch)", b"tch", found, word_start=True)
    assert found == [8, 19]
    # with conditions: a line counts where it also holds every run of one conjunction
    found = []
    first_per_line(b"torch run\ntorch/func/x\nx torch.func.y", b"torch", found, conds=((b"torch", b"func"),))
    assert found == [10, 25]


def test_literal_conditions_hold_for_every_evidence_line_of_the_base() -> None:
    """Soundness over the whole base: wherever an item of a context matches a line (examples, counter-examples,
    corpus logs), the line holds one of the context's literals (at a word start, for those that must be) and
    satisfies that literal's conditions; a line dropped for them could never have been evidence."""
    from cudnn_doctor.read.normalize import normalize_line

    m = Matcher(CATALOG)
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    lines = {normalize_line(line)[0] for text in texts for line in text.splitlines()}
    lines |= {line for line in EVIDENCE if "\x1b" not in line}
    contexts = {(*s.context.exclude_any, *s.context.require_any, *s.context.support_any) for s in CATALOG.signatures}
    checked = filtered = 0
    for items in contexts:
        lits = m.evidence.literals(items) if items else None
        if lits is None:
            continue
        conds, starts = m.evidence.conditions(items) or {}, m.evidence.word_starts(items)
        pattern = m.evidence.any_pattern(items)
        for line in lines:
            low = line.lower().encode()
            holds = [lit for lit in lits if lit in low and (lit not in starts or _at_word_start(low, lit))]
            ok = [lit for lit in holds if conds.get(lit) is None or any(all(r in low for r in c) for c in conds[lit])]
            filtered += len(holds) > 0 and not ok
            if pattern.search(line):
                checked += 1
                assert ok, (items, line)
    assert checked > 50 and filtered > 0


def _located(low: bytes, lit: bytes, word_start: bool, conds: tuple[tuple[bytes, ...], ...] | None) -> bool:
    found: list[int] = []
    first_per_line(low, lit, found, word_start=word_start, conds=conds)
    return bool(found)


def _coloured(rng: random.Random, row: str) -> str:
    """``row`` with a colour code somewhere (inside a word too), or upper-cased, or as it is."""
    roll = rng.random()
    if roll < 0.3 and row:
        at = rng.randrange(len(row) + 1)
        return row[:at] + rng.choice(("\x1b[1;34m", "\x1b[0m", "\x1b[m")) + row[at:]
    return row.upper() if roll < 0.4 else row


def test_one_pass_for_every_context_finds_the_lines_the_word_pass_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The union pass (_Evidence._spec_lines: one hyperscan pass over a clean piece for the literals of every
    context asked so far; a word-start literal after a byte that is no word byte or at the piece's start; a
    literal with conditions located only where it and the runs of one of them are) gives each context of the
    base the lines that the pass of every word and a ``find`` per literal give (_in_piece, _Piece.lines_of):
    over the examples, the corpus and the evidence lines, some coloured (a colour code inside a literal too) or
    upper-cased, with literals at a line's start, in pieces of any size."""
    pytest.importorskip("hyperscan")
    from cudnn_doctor.match import evidence as evidence_mod
    from cudnn_doctor.match.lines import _Lines

    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    rng = random.Random(5)
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    pool = [line for text in texts for line in text.splitlines()] + EVIDENCE + [n.format(n=7) for n in NOISE]
    starts = ["tch::nn::lstm", "cargo test", "mlverse", "WeightDrop(lstm)", "_setweights()", "DataParallel(m)", "higher"]
    rows = [_coloured(rng, rng.choice(pool if rng.random() < 0.9 else starts)) for _ in range(4000)]
    data = "\n".join(rows).encode()
    m = Matcher(CATALOG)
    for _ in range(2):  # the first window makes the prefilter that reports words
        lines = _Lines(data, data.count(b"\n") + 1)
        m._prefilter_hits(lines, 0, len(data))
    ev = m.evidence
    contexts = {(*s.context.exclude_any, *s.context.require_any, *s.context.support_any) for s in CATALOG.signatures}
    specs = sorted({ev._spec(items) for items in contexts if items and ev.literals(items) and not evidence_mod._spans_lines(ev.literals(items))})
    ev._pending.update(specs)
    ev._grow()
    assert ev._union is not None and set(ev._union_at) == set(specs)
    checked = found = 0
    for grow, most in ((1, 2), (4096, 1 << 20)):
        monkeypatch.setattr(evidence_mod, "PIECE_BYTES", grow)
        monkeypatch.setattr(evidence_mod, "PIECE_BYTES_MAX", most)
        cover = evidence_mod._Cover()
        for _ in range(60):
            lo = rng.randrange(lines.count)
            for piece, _f, _t in cover.segments(lines, lo, min(lines.count - 1, lo + rng.randrange(200))):
                for sid in specs:
                    lits, conds, word_starts = ev._specs[sid]
                    want = set()
                    for lit in ev._in_piece(sid, lines, piece):
                        i = lits.index(lit)
                        want.update(piece.lines_of(lit, conds[i], word_starts[i]))
                    assert ev._spec_lines(sid, lines, piece) == sorted(want), (ev._specs[sid][0], piece.first)
                    checked += 1
                    found += bool(want)
    assert checked > 1000 and found > 100


def test_a_context_joins_the_union_pass_before_the_next_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """A context asked of a piece for the first time is answered by the word pass; before the next piece is
    scanned it joins the union database, which then answers it; up to MAX_UNION_SPECS contexts, the rest by the
    word pass; and where the database cannot be made, every context by the word pass. The lines are the same."""
    pytest.importorskip("hyperscan")
    from cudnn_doctor.match import evidence as evidence_mod
    from cudnn_doctor.match.lines import _Lines

    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    rows = [f"step {i} 12.5 batches/s" for i in range(300)]
    rows[40] = "model = nn.\x1b[1mData\x1b[0mParallel(model)"
    rows[140] = "tch::nn::lstm built"
    rows[240] = "Applying weight drop of 0.5 to weight_hh_l0"
    data = "\n".join(rows).encode()
    dp = (r"\bnn\.DataParallel\b|\bDataParallel\(",)
    lib = (r"\btch(?:-rs)?\b|\btch::nn\b",)
    drop = (r"Applying weight drop of",)

    def run(**patches: object) -> tuple[list[list[int]], Matcher]:
        with pytest.MonkeyPatch.context() as mp:
            for name, value in patches.items():
                mp.setattr(evidence_mod, name, value)
            m = Matcher(CATALOG)
            for _ in range(2):
                lines = _Lines(data, data.count(b"\n") + 1)
                m._prefilter_hits(lines, 0, len(data))
            got = [m.evidence.lines_with(items, lines, lo, lo + 60) for lo in (0, 100, 200) for items in (dp, lib, drop)]
            return got, m

    want = [[40], [], [], [], [140], [], [], [], [240]]
    got, m = run()
    assert got == want
    assert {m.evidence._spec(items) for items in (dp, lib, drop)} == set(m.evidence._union_at)  # all joined
    got, m = run(MAX_UNION_SPECS=1)
    assert got == want and len(m.evidence._union_at) == 1
    got, m = run(_union_db=lambda specs, thread: None)
    assert got == want and not m.evidence._union_at and not m.evidence._union_ok


def test_a_matcher_handed_to_another_thread_scans_with_that_thread_s_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """The union database's scratch serves one thread: a matcher whose union was made in one thread and then
    asked in another gets that thread's own database, and the same lines."""
    pytest.importorskip("hyperscan")
    import threading

    from cudnn_doctor.match.lines import _Lines

    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    rows = [f"step {i} 12.5 batches/s" for i in range(4000)]
    for at in (40, 1040, 2040, 3040):  # far apart: each check around one is a piece of its own
        rows[at] = "model = nn.DataParallel(model)"
    data = "\n".join(rows).encode()
    dp = (r"\bnn\.DataParallel\b|\bDataParallel\(",)
    m = Matcher(CATALOG)
    for _ in range(2):
        lines = _Lines(data, data.count(b"\n") + 1)
        m._prefilter_hits(lines, 0, len(data))
    got = [m.evidence.lines_with(dp, lines, 0, 60), m.evidence.lines_with(dp, lines, 1000, 1060)]  # joins, then scans
    mine = m.evidence._union
    assert mine is not None and m.evidence._union_thread == threading.get_ident()
    there: list[object] = []
    worker = threading.Thread(target=lambda: there.extend(
        [m.evidence.lines_with(dp, lines, 2000, 2060), m.evidence.lines_with(dp, lines, 3000, 3060), m.evidence._union_thread]))
    worker.start()
    worker.join()
    assert got == [[40], [1040]] and there[:2] == [[2040], [3040]]
    assert there[2] == worker.ident and m.evidence._union is not mine and m.evidence._union.db is not mine.db


def test_a_pieces_word_pass_says_where_each_word_first_starts() -> None:
    """The piece pass gives each word it finds with the offset of its first occurrence, so a literal is located
    from there on (_Piece.lines_of): over every corpus log and example, in pieces of any size, that offset is
    where a search from the start finds it, and a piece's lines of a literal are those a search from the
    start gives (at a word start, with conditions)."""
    pytest.importorskip("hyperscan")
    from cudnn_doctor.match.evidence import _Piece
    from cudnn_doctor.match.prefilter import Prefilter

    m = Matcher(CATALOG)
    m._confirm_all()
    prefilter = Prefilter((), m._words or ())
    texts = [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    texts += [ex.text for s in CATALOG.signatures for ex in s.examples]
    rnd = random.Random(3)
    checked = 0
    for text in texts:
        data = text.lower().encode()
        for _ in range(3):
            lo = rnd.randrange(0, max(1, len(data)))
            lo = data.rfind(b"\n", 0, lo) + 1  # pieces start at a line start
            piece = data[lo : lo + rnd.choice((200, 4096, 1 << 20))]
            found = prefilter.caseless_in(piece)
            assert found is not None
            assert {w: piece.find(w) for w in found} == found
            assert not [w for w in prefilter.caseless if w not in found and w in piece]
            made = _Piece(0, piece, piece.count(b"\n"))
            made.words = (found, prefilter.caseless)
            for word in list(found)[:20]:
                for start, conds in ((False, None), (True, None), (False, ((b"a",), (b"e", b"o")))):
                    want: list[int] = []
                    first_per_line(piece, word, want, word_start=start, conds=conds)
                    placed = _Piece(0, piece, made.last).lines_of(word, conds, start)  # no pass: from the start
                    assert made.lines_of(word, conds, start) == placed
                    assert len(placed) == len(want)
                    checked += 1
    assert checked > 1000


def test_the_passes_words_never_hide_evidence_of_the_base() -> None:
    """Soundness of what the prefilter's passes say about a context's literals (evidence._present): wherever an
    item of a context matches a line of the base, a pass over that line finds, for one of the context's
    literals that the line holds as the context needs it (first_per_line, at a word start and with its
    conditions), the literal and the chosen run of one of its conditions (condition_words); so no line that
    could be evidence is left out for the words a pass lacks."""
    pytest.importorskip("hyperscan")
    from cudnn_doctor.match.evidence import _checks, _counting
    from cudnn_doctor.match.prefilter import Prefilter
    from cudnn_doctor.read.normalize import normalize_line

    m = Matcher(CATALOG)
    m._confirm_all()  # the words of every window's pass: Confirm's, the contexts' literals and condition words
    words = m._words or ()
    prefilter = Prefilter((), words)
    assert prefilter.caseless_in(b"") is not None
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    texts += [path.read_text(encoding="utf-8").partition("\n")[2] for path in CORPUS]
    lines = {normalize_line(line)[0] for text in texts for line in text.splitlines()}
    lines |= {line for line in EVIDENCE if "\x1b" not in line}
    found_in = {line: set(prefilter.caseless_in(line.lower().encode()) or ()) for line in lines}
    scanned = prefilter.caseless
    contexts = {(*s.context.exclude_any, *s.context.require_any, *s.context.support_any) for s in CATALOG.signatures}
    checked = hidden = 0
    for items in contexts:
        if not items or m.evidence.literals(items) is None:
            continue
        spec = m.evidence._specs[m.evidence._spec(items)]
        checks = _checks(spec)
        starts = dict(zip(spec[0], spec[2], strict=True))
        assert all(w in scanned for w in m.evidence.condition_words(items))
        pattern = m.evidence.any_pattern(items)
        for line in lines:
            counts = _counting(checks, found_in[line], scanned)
            low = line.lower().encode()
            if pattern.search(line):
                checked += 1
                # a literal the pass lets through still finds the line, as lines_of looks for it
                conds = dict(checks)
                assert any(_located(low, lit, starts[lit], conds[lit]) for lit in counts), (items, line)
            else:
                hidden += bool({lit for lit, _ in checks} & found_in[line]) and not counts
    assert checked > 50 and hidden > 0  # and the words do leave lines out


def test_a_window_is_freed_without_the_cycle_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing kept in a window's memo refers back to the window (a closure over it once did): each 1 MiB
    window of a big log is freed when the next comes, not when the cycle collector runs (peak RSS grew with
    the log's size, 45 -> 83 MiB over 1 GiB)."""
    import gc
    import weakref

    from cudnn_doctor.match import lines as lines_mod

    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    windows: list[weakref.ref[object]] = []

    class Tracked(lines_mod._Lines):
        def __init__(self, data: bytes, count: int, marks: object = None) -> None:
            super().__init__(data, count, marks)  # type: ignore[arg-type]
            windows.append(weakref.ref(self))

    monkeypatch.setattr(match_mod, "_Lines", Tracked)
    text = repeated_log(60)
    blocks = [text[i : i + 40_000] for i in range(0, len(text), 40_000)]
    blocks = ["\n".join(b.split("\n")[:-1]) for b in blocks]  # whole lines (some are dropped: no matter)
    m = Matcher(CATALOG)
    gc.collect()
    gc.disable()
    try:
        for got, _miss in m.scan_blocks(blocks, "log"):
            if got is not None:
                assert got.evidence is not None
        alive = [ref for ref in windows[:-2] if ref() is not None]
    finally:
        gc.enable()
    assert len(windows) > 5 and not alive


def test_items_that_do_not_combine_are_searched_one_by_one() -> None:
    """A back-reference's group number shifts in an alternation and ``(?x)`` would make every other item
    verbose: such items are not combined, so whether a line is evidence stays what each item says."""
    from cudnn_doctor.kb.load import Catalog

    evidence = Matcher(Catalog(signatures=[], evidence={})).evidence
    assert evidence.any_pattern((r"\bimport higher\b", r"\bfunctional_call\(")) is not None
    for odd in (r"(\w+)=\1", r"(?P<a>\w+)=(?P=a)", r"(?x) weight \s drop", r"(?i)WeightDrop"):
        assert evidence.any_pattern((r"(ab)c", odd)) is None, odd
    m = Matcher(CATALOG)
    items = (r"(lstm)_(gru)", r"\b(\w+)=\1\b")
    assert m._relevant(items, "x=x") and not m._relevant(items, "x=y")
    assert m._relevant((r"(?x) weight \s drop", r"import higher"), "import higher")


def test_a_cr_overwritten_line_keeps_its_word_start_in_a_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean piece deletes what normalization deletes from inside a line, but not CR: normalization keeps a
    line's last CR segment, so 'loss 0.5\\rDataParallel' is 'DataParallel' at a word start (the exclusion of
    the weight-drop cause), also where a non-CSI escape in the piece (tput sgr0's ESC ( B) makes it delete
    every control byte."""
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    weight_drop = "pytorch/cause-weight-drop-wrapper-unflattens-rnn"
    noise = [f"INFO step {i} loss 0.{i % 97} lr 1e-3" for i in range(300)]
    for escape in ("", "\x1b[1mTraining\x1b(B\x1b[m started"):
        body = [escape, "model = WeightDrop(lstm, ['weight_hh_l0'], dropout=0.5)", "epoch 3 loss 0.5\rDataParallel wraps it", FLATTEN]
        found, misses = Matcher(CATALOG).scan_text("\n".join([*noise, *body, *noise]))
        assert weight_drop not in {m.sig.id for m in found}, repr(escape)
        assert any(m.sig.id == weight_drop and "DataParallel" in m.reason for m in misses), repr(escape)


def _skip_catalog(*sigs: object) -> object:
    from cudnn_doctor.kb.load import Catalog

    return Catalog(signatures=list(sigs), evidence=CATALOG.evidence)  # type: ignore[arg-type]


def _with_and_without_skip(catalog: object, blocks: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
    monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)

    def run(skip: bool) -> list[tuple[str, int]]:
        m = Matcher(catalog)  # type: ignore[arg-type]
        if not skip:
            m._nothing_to_give = lambda idxs, run, win: False  # type: ignore[method-assign]
        return [(x.sig.id, x.line) for x, _ in m.scan_blocks(blocks, "log") if x is not None]

    return run(True), run(False)


def test_a_skip_reads_each_signature_s_context_by_the_roles_of_its_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two signatures of one group with the same items in other roles (one excludes 'alpha', the other requires
    it): an occurrence with 'alpha' nearby rules the first out and not the second, which still matches."""
    import dataclasses

    from cudnn_doctor.model import Context

    base = CATALOG.signatures[0]

    def sig(sid: str, ctx: Context) -> object:
        return dataclasses.replace(base, id=sid, regex=r"BOOM happened", flags=(), prefilter=("BOOM happened",), window_before=0, window_after=0, context=ctx)

    needs = sig("t/needs-alpha-or-beta", Context(require_any=("alpha", "beta"), lines_before=3, lines_after=3))
    excludes = sig("t/no-alpha-needs-beta", Context(exclude_any=("alpha",), require_any=("beta",), lines_before=3, lines_after=3))
    rows: list[str] = []
    for i in range(4):  # spends both signatures' near misses (no evidence)
        rows += [f"noise {i}"] * 8 + ["BOOM happened"] + [f"noise {i}"] * 8
    rows += ["noise"] * 8 + ["alpha was here", "BOOM happened"] + ["noise"] * 8
    skipped, searched = _with_and_without_skip(_skip_catalog(needs, excludes), ["\n".join(rows)], monkeypatch)
    assert skipped == searched == [("t/needs-alpha-or-beta", 78)]


def test_a_match_that_may_span_lines_is_never_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A two-line match whose first line ends a block is found again from the next window, which sees evidence
    the first could not (the block after a one-line block): the first window's ruled-out match keeps it from
    being reported there, so such a group is searched even once its near misses are spent."""
    import dataclasses

    from cudnn_doctor.model import Context

    two = dataclasses.replace(
        CATALOG.signatures[0], id="t/two-line", regex=r"START[^\n]*\n[^\n]*END", flags=(), prefilter=("START", "END"),
        window_before=1, window_after=1, context=Context(require_any=("evidence",), lines_before=0, lines_after=2),
    )
    rows: list[str] = []
    for _ in range(4):  # four occurrences without evidence: the near misses are spent
        rows += ["noise"] * 6 + ["START a", "b END"] + ["noise"] * 6
    rows += ["noise"] * 3 + ["START x"]
    blocks = ["\n".join(rows), "y END", "filler\nevidence here\n" + "\n".join(["noise"] * 5)]
    skipped, searched = _with_and_without_skip(_skip_catalog(two), blocks, monkeypatch)
    assert skipped == searched == []
