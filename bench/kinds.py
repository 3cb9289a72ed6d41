"""Every kind of log (issue 29): `cudnn-doctor diagnose` per kind beside grep and the tool's own literal scan.

    python bench/kinds.py [--size 64MiB] [--kinds sparse,dense,...] [--repeat 1] [--one-core] [--out DIR] [--keep]

For each kind a seeded log of --size bytes is written (in a temp dir, removed afterwards unless --keep), with
real errors planted at known places, and measured in the same run, on the same warm page cache:

* ``cudnn-doctor diagnose --format json LOG``: wall, CPU (user+sys), peak RSS (``/usr/bin/time``);
* ``grep -E -c -f PATTERNS LOG`` over the signatures' regexes converted to ERE (bench/biglog.py), C locale;
* the baselines that do the tool's own work: ``grep -F -i -c -f LITERALS LOG`` over the prefilter's literals
  (the signatures' and the environment probes') and hyperscan alone over the same literals (caseless, the file
  in 1 MiB blocks, ``bench/kinds.py --hs-only``);
* with ``--one-core`` the doctor and grep again under ``taskset -c 0``.

Budgets (issue 29): per kind, 1 GiB on two cores <= 5 s (scaled here by size: the figure shown is s/GiB, which
at small sizes includes start-up), <= 3x grep -E in the same run, peak RSS <= 100 MiB, no kind costing more
than 3x another per byte; the planted errors found (ids) and nothing else.

Kinds: sparse (biglog's CI log), dense (~40% of lines name cuDNN/LSTM/GRU), dense-nover (the same without any
``Loaded cuDNN version`` line: a PyTorch log), tqdm (logging lines alternating with tqdm bars), keras (Keras
Progbar updates with their ``\\b`` and ``\\r``), alternating (logging lines alternating with short lines),
pytest (``pytest -v``: lines of equal length), summary (Keras model summaries: lines of equal length), long
(single lines of 8-60 KiB), crlf (Windows line endings), cjk (a training log in Chinese: prose glued to numbers,
full-width punctuation), colour (every line coloured by a logging library, a live progress display's lines), gradle (a
Java build: '> Task' lines, '- ' items), notebook (a notebook's JSON), docker (a container's
training output in Docker's json-file log: a JSON record per line, colour codes and tqdm's '\r' escaped in it),
mix (all of them in turn, 256 KiB each), warnings (distinct training lines with PyTorch's RNN flatten warning after
every 50: each a finding's occurrence, its context read), wide (every line ~63 KB, near the reader's MAX_LINE: a
block of 1 MiB holds a few lines).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import biglog  # the benchmark's sibling: generators, grep patterns, measure

GIB = 1 << 30
KERAS_ERROR = (
    "Traceback (most recent call last):\n  File \"train.py\", line 41, in <module>\n    model.fit(x, y, epochs=50)\n"
    "tensorflow.python.framework.errors_impl.InternalError: Failed to call ThenRnnForward with model config: "
    "[rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, num_units, dir_count, "
    "max_seq_length, batch_size, cell_num_units]: [1, 300, 128, 1, 100, 64, 128]\n"
    "\t [[{{node CudnnRNN}}]] [Op:__inference_train_function_5135]"
)


class _Lines:
    """biglog's noise writers write through ``line``: collected here, without biglog's timestamps."""

    def __init__(self) -> None:
        self.out: list[str] = []

    def line(self, text: str) -> None:
        self.out.append(text)


def _biglog_noise(dense: bool, loaded: bool = True) -> Callable[[random.Random, int], list[str]]:
    def noise(rng: random.Random, step: int) -> list[str]:
        w = _Lines()
        (biglog._dense_noise if dense else biglog._noise)(w, rng, step)  # type: ignore[arg-type]
        if step % 20000 == 0:
            biglog._section(w, rng, step)  # type: ignore[arg-type]
        lines = [t for t in w.out if loaded or "Loaded cuDNN version" not in t]
        return [f"2024-05-14T09:{step // 60 % 60:02d}:{step % 60:02d}.{step % 10**7:07d}Z {t}" for t in lines]

    return noise


def _tqdm(rng: random.Random, step: int) -> list[str]:
    pct = step % 101
    bar = "█" * (pct // 10) + " " * (10 - pct // 10)
    return [f"INFO:trainer:epoch {step // 100} step {step} loss={rng.random() * 3:.4f} lr={rng.random() * 1e-3:.2e}",
            f"Epoch {step // 100}: {pct:3d}%|{bar}| {pct * 10}/1000 [00:{pct % 60:02d}<01:{pct % 60:02d}, "
            f"{rng.random() * 40 + 10:.2f}it/s, loss={rng.random() * 3:.3f}]"]


def _keras(rng: random.Random, step: int) -> list[str]:
    """One epoch: its header, then 200 Progbar updates on one line, each after '\\b' * len(previous) + '\\r'."""
    parts, prev = [], ""
    for i in range(1, 201):
        done = i * 30 // 200
        bar = f"{i:3d}/200 [{'=' * (done - 1)}{'>' if done < 30 else '='}{'.' * (30 - done)}] - ETA: {(200 - i) // 10}s - loss: {rng.random():.4f}"
        parts.append("\b" * len(prev) + "\r" + bar)
        prev = bar
    return [f"Epoch {step + 1}/50", "".join(parts) + f" - val_loss: {rng.random():.4f}"]


def _alternating(rng: random.Random, step: int) -> list[str]:
    return [f"2024-05-14 09:12:{step % 60:02d},{step % 1000:03d} - trainer - INFO - step {step}: loss {rng.random() * 3:.5f}, "
            f"tokens/s {rng.randrange(1000, 90000)}", rng.choice(("", "ok", "---", "done", "  .", "[eval]"))]


def _pytest(rng: random.Random, step: int) -> list[str]:
    name = f"tests/test_{rng.choice(('rnn', 'lstm_cell', 'gru', 'data', 'optim'))}.py::test_{rng.choice(('forward', 'backward', 'packed', 'shapes', 'state'))}_{step % 997}"
    status = rng.choice(("PASSED", "PASSED", "PASSED", "SKIPPED", "XFAIL"))
    pct = f"[{step % 100:3d}%]"
    return [f"{name} {status}".ljust(80 - len(pct)) + pct]


def _summary(rng: random.Random, step: int) -> list[str]:
    rows = [f'Model: "functional_{step}"', "┏" + "━" * 29 + "┳" + "━" * 24 + "┳" + "━" * 15 + "┓",
            "┃ Layer (type)                ┃ Output Shape           ┃       Param # ┃",
            "┡" + "━" * 29 + "╇" + "━" * 24 + "╇" + "━" * 15 + "┩"]
    for i in range(rng.randrange(4, 12)):
        layer = rng.choice(("lstm", "gru", "dense", "dropout", "embedding", "bidirectional"))
        shape = f"(None, {rng.randrange(10, 300)}, {rng.choice((64, 128, 256))})"
        rows.append(f"│ {f'{layer}_{i} ({layer.title()})':<27} │ {shape:<22} │ {rng.randrange(10**6):>13,} │")
    rows += ["└" + "─" * 29 + "┴" + "─" * 24 + "┴" + "─" * 15 + "┘",
             f" Total params: {rng.randrange(10**7):,} ({rng.random() * 40:.2f} MB)"]
    return rows


def _long(rng: random.Random, step: int) -> list[str]:
    values = ", ".join(f"{rng.random():.6f}" for _ in range(rng.randrange(900, 6500)))
    return [f'{{"event": "metrics", "step": {step}, "lstm_hidden": [{values}]}}', f"INFO:trainer:step {step} done"]


# PyTorch's warning for an RNN whose weights are not one chunk (rnn.py, Python's warnings form), as a training log
# repeats it when the module is not flattened after being moved or replicated
RNN_WARNING = (
    "/srv/train/model.py:88: UserWarning: RNN module weights are not part of single contiguous chunk of memory. "
    "This means they need to be compacted at every call, possibly greatly increasing memory usage. To compact "
    "weights again call flatten_parameters().\n  output, hidden = self.lstm(packed, hidden)"
)


def _warnings(rng: random.Random, step: int) -> list[str]:
    """Distinct training lines with the RNN warning after every 50 of them (each a finding's occurrence)."""
    line = f"2024-05-14 09:12:{step % 60:02d},{step % 1000:03d} INFO step {step}: loss {rng.random() * 3:.5f} acc {rng.random():.4f}"
    return [line, *RNN_WARNING.split("\n")] if step % 50 == 49 else [line]


def _wide(rng: random.Random, step: int) -> list[str]:
    """Every line near the reader's longest (MAX_LINE, 64 KiB): a metrics dump of ~60 KB per line."""
    values = ", ".join(f"{rng.random():.6f}" for _ in range(5800))
    return [f'{{"event": "metrics", "step": {step}, "gru_state": [{values}]}}']


def _crlf(rng: random.Random, step: int) -> list[str]:
    return _biglog_noise(False)(rng, step)


def _docker(rng: random.Random, step: int) -> list[str]:
    """A training run's output as a container prints it (bench/kinds.py writes each line as a json-file
    record): coloured logging lines, tqdm bars (their updates after '\\r', the line ended once), a warning
    with its source line now and then."""
    pct = step % 101
    bar = "".join(f"\r{p:3d}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {p * 10}/1000 [00:{p % 60:02d}<01:{p % 60:02d}, {rng.random() * 90:.2f}it/s]"
                  for p in range(max(0, pct - 4), pct + 1))
    lines = [f"\x1b[32m2024-05-14 09:12:{step % 60:02d} INFO\x1b[0m trainer: epoch {step // 100} step {step} loss={rng.random() * 3:.4f}",
             f"Epoch {step // 100}: {bar}"]
    if step % 50 == 0:
        lines += ["/usr/local/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 8 "
                  "worker processes in total. Our suggested max number of worker in current system is 4, which is smaller than what this "
                  "DataLoader is going to create.",
                  "  warnings.warn(_create_warning_msg("]
    return lines


def _cjk(rng: random.Random, step: int) -> list[str]:
    """A training log in Chinese (a PaddleOCR/MMEngine-style run's own messages): prose glued to numbers and
    names, full-width colons and commas, now and then a line of ASCII fields."""
    lines = [f"2024-05-14 09:12:{step % 60:02d} [信息] 第{step // 100}轮 第{step}步：损失={rng.random() * 3:.4f}，"
             f"学习率={rng.random() * 1e-3:.2e}，耗时{rng.random() * 2:.2f}秒，已保存到output/模型_{step % 7}.pdparams"]
    if step % 5 == 0:
        lines.append(f"[2024/05/14 09:12:{step % 60:02d}] ppocr INFO: epoch: [{step // 100}/500], global_step: {step}, "
                     f"lr: {rng.random() * 1e-3:.6f}, acc: {rng.random():.6f}, 训练样本数：{rng.randrange(10**5)}")
    return lines


def _colour(rng: random.Random, step: int) -> list[str]:
    """Every line coloured by a logging library (loguru's default format, a rich-style highlighted value in
    the message), as a CI job that forces colour stores it, with a live progress display's line now and then
    (rich's: each update after a line erase)."""
    lines = [f"\x1b[32m2024-05-14 09:12:{step % 60:02d}.{step % 1000:03d}\x1b[0m | \x1b[1mINFO    \x1b[0m | "
             f"\x1b[36mtrainer\x1b[0m:\x1b[36mfit\x1b[0m:\x1b[36m{200 + step % 50}\x1b[0m - \x1b[1mepoch {step // 100} step "
             f"{step} loss=\x1b[1;36m{rng.random() * 3:.4f}\x1b[0m\x1b[1m lr=\x1b[1;36m{rng.random() * 1e-3:.2e}\x1b[0m"]
    if step % 4 == 0:
        done = step % 40
        lines.append(f"\r\x1b[2KEpoch {step // 200}/9 \x1b[35m{'━' * done}\x1b[0m\x1b[90m╺{'━' * (39 - done)}\x1b[0m {step % 200}/200 "
                     f"\x1b[2m0:00:{step % 60:02d} • 0:00:{(200 - step % 200) % 60:02d}\x1b[0m \x1b[2;4m{rng.random() * 30:.2f}it/s\x1b[0m")
    return lines


def _gradle(rng: random.Random, step: int) -> list[str]:
    """A Java build's log (Gradle, --console=plain: a DL4J project's CI): '> Task' lines, a compiler warning,
    a test's output, a YAML-ish dump of its configuration ('- ' items) now and then."""
    module = f":module{step % 40}"
    lines = [f"> Task {module}:compileJava UP-TO-DATE", f"> Task {module}:test",
             f"o.d.o.l.ScoreIterationListener - Score at iteration {step} is {rng.random():.6f}"]
    if step % 10 == 0:
        lines += ["warning: [deprecation] fit(DataSetIterator) in MultiLayerNetwork has been deprecated", "  - layer: LSTM",
                  f"  - nIn: {rng.randrange(8, 512)}", f"  - nOut: {rng.randrange(8, 512)}"]
    return lines


def docker_record(line: str, step: int) -> str:
    """One line as Docker's json-file driver stores it: the line and its newline in 'log' (Go's encoder: UTF-8
    as it is, '<', '>' and '&' escaped), the stream, the time."""
    log = json.dumps(line + "\n", ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'{{"log":{log},"stream":"stderr","time":"2024-05-14T09:{step // 60 % 60:02d}:{step % 60:02d}.{step % 10**9:09d}Z"}}'


KINDS: dict[str, Callable[[random.Random, int], list[str]]] = {
    "sparse": _biglog_noise(False), "dense": _biglog_noise(True), "dense-nover": _biglog_noise(True, loaded=False),
    "tqdm": _tqdm, "keras": _keras, "alternating": _alternating, "pytest": _pytest, "summary": _summary,
    "long": _long, "crlf": _crlf, "notebook": _biglog_noise(False), "mix": _biglog_noise(False), "docker": _docker,
    "cjk": _cjk, "colour": _colour, "gradle": _gradle, "warnings": _warnings, "wide": _wide,
}
PLANTS = {"keras": [(0.5, KERAS_ERROR), (1.0, KERAS_ERROR)]}
# the last plant ends the log (the tail reading): corpus 010, a message whose finding is its own wherever it stands;
# not 031 (PyTorch 0.4's bare status line) since 2a0b154: its finding follows the RNN words around it, which the
# noise of some kinds has (an 'LSTM' config dump), so the planted text alone names another signature than the log
DEFAULT_PLANTS = [(0.3, "001"), (0.7, "038"), (1.0, "010")]


def _plants(kind: str) -> list[tuple[float, str]]:
    if kind == "warnings":  # its warnings are findings of their own: one planted, the rest are its noise
        return [(at, biglog._case(name)) for at, name in DEFAULT_PLANTS] + [(0.5, RNN_WARNING)]
    return PLANTS.get(kind) or [(at, biglog._case(name)) for at, name in DEFAULT_PLANTS]


def _mixed(rng: random.Random) -> Iterator[list[str]]:
    """The mix: each kind in turn, ~256 KiB of its lines."""
    kinds = [k for k in KINDS if k not in ("mix", "notebook", "docker", "cjk", "colour", "gradle", "warnings", "wide")]  # (the mix of the earlier rounds)
    step = 0
    while True:
        for kind in kinds:
            size = 0
            while size < 256 << 10:
                lines = KINDS[kind](rng, step)
                size += sum(map(len, lines))
                step += 1
                yield lines


def generate(kind: str, path: Path, size: int, seed: int = 5) -> list[str]:
    """Write the kind's log; return the planted texts."""
    rng = random.Random(seed)
    plants = sorted(_plants(kind))
    eol = "\r\n" if kind == "crlf" else "\n"
    written, step, pi, planted = 0, 0, 0, []
    mixed = _mixed(rng) if kind == "mix" else None
    notebook = kind == "notebook"
    with open(path, "wb") as fh:
        if notebook:
            fh.write(b'{\n "cells": [\n  {\n   "cell_type": "code",\n   "outputs": [\n    {\n     "name": "stderr",\n'
                     b'     "output_type": "stream",\n     "text": [\n')
        buf: list[str] = []
        while pi < len(plants):
            if written >= plants[pi][0] * (size - 8000):
                lines = plants[pi][1].split("\n")
                planted.append(plants[pi][1])
                pi += 1
            else:
                lines = next(mixed) if mixed is not None else KINDS[kind](rng, step)
                step += 1
            if notebook:
                text = "".join(f"      {json.dumps(t + chr(10))},\n" for t in lines)
            elif kind == "docker":
                text = "".join(docker_record(t, step) + "\n" for t in lines)
            else:
                text = eol.join(lines) + eol
            buf.append(text)
            written += len(text.encode("utf-8"))
            if len(buf) > 2000:
                fh.write("".join(buf).encode("utf-8"))
                buf.clear()
        fh.write("".join(buf).encode("utf-8"))
        if notebook:
            fh.write(b'      "\\n"\n     ]\n    }\n   ],\n   "source": []\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n'
                     b' "nbformat_minor": 5\n}\n')
    return planted


def expected_ids(planted: list[str]) -> set[str]:
    from cudnn_doctor import diagnose

    ids: set[str] = set()
    for text in planted:
        for f in diagnose(text + "\n").findings:
            ids |= {f.id, *(g.id for g in f.consequences)}
    return ids


def found_ids(report_path: Path) -> set[str]:
    try:
        report = json.loads(report_path.read_text() or "{}")
    except ValueError:
        return {"<no JSON report>"}
    return {g["id"] for f in report.get("findings", []) for g in (f, *f.get("consequences", []))}


def tool_literals(path: Path) -> int:
    """The prefilter's literals (the signatures' and the probes'), one per line, for grep -F and hyperscan."""
    from cudnn_doctor.env.detect import EnvironmentCollector
    from cudnn_doctor.kb.compiled import load_catalog
    from cudnn_doctor.match import Matcher

    m = Matcher(load_catalog(), probes=EnvironmentCollector().probes())
    lits = sorted({*getattr(m, "by_literal", {}), *getattr(m, "probe_by_literal", {})})
    path.write_text("".join(f"{lit}\n" for lit in lits if lit and "\n" not in lit), encoding="utf-8")
    return len(lits)


def hs_only(literals: Path, log: Path) -> int:
    """Hyperscan alone over the literals (caseless, block mode, the file in 1 MiB blocks): the lines hit."""
    import hyperscan

    lits = [line.encode() for line in literals.read_text(encoding="utf-8").splitlines() if line]
    db = hyperscan.Database()
    db.compile(expressions=[hyperscan_escape(x) for x in lits], ids=list(range(len(lits))),
               flags=[hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH] * len(lits))
    hits = 0

    def on_match(*_: object) -> None:
        nonlocal hits
        hits += 1

    with open(log, "rb") as fh:
        while block := fh.read(1 << 20):
            db.scan(block, match_event_handler=on_match)
    return hits


def hyperscan_escape(lit: bytes) -> bytes:
    return b"".join(b"\\x%02x" % c for c in lit)


def _median(cmd: list[str], env: dict[str, str], out: Path, repeat: int) -> dict[str, object]:
    runs = [biglog.measure(cmd, env, out, sample=False) for _ in range(repeat)]
    runs.sort(key=lambda m: float(m["user_s"]) + float(m["sys_s"]))  # type: ignore[arg-type]
    mid = dict(runs[len(runs) // 2])
    mid["cpu_s"] = round(float(mid["user_s"]) + float(mid["sys_s"]), 2)  # type: ignore[arg-type]
    mid["walls_s"] = [m["wall_s"] for m in runs]
    mid["rss_mib"] = max(float(m["rss_mib"]) for m in runs)  # type: ignore[arg-type]
    return mid


def run_kind(kind: str, args: argparse.Namespace, work: Path, env: dict[str, str]) -> dict[str, object]:
    log = work / f"{kind}.log"
    t0 = time.perf_counter()
    planted = generate(kind, log, args.size)
    size = log.stat().st_size
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # the page cache
    doctor = [args.python, "-m", "cudnn_doctor", "diagnose", "--format", "json", "--exit-zero", str(log)]
    r: dict[str, object] = {"kind": kind, "bytes": size, "generated_s": round(time.perf_counter() - t0, 1)}
    r["doctor"] = _median(doctor, env, work / "report.json", args.repeat)
    r["grep_E"] = _median(["grep", "-E", "-c", "-f", str(work / "patterns.ere"), str(log)], env, work / "g.txt", args.repeat)
    r["grep_F_i"] = _median(["grep", "-F", "-i", "-c", "-f", str(work / "literals.txt"), str(log)], env, work / "f.txt", args.repeat)
    if subprocess.run([args.python, "-c", "import hyperscan"], capture_output=True).returncode == 0:
        r["hyperscan_only"] = _median([args.python, __file__, "--hs-only", str(work / "literals.txt"), str(log)], env,
                                      work / "h.txt", args.repeat)
    if args.one_core:
        r["doctor_one_core"] = _median(["taskset", "-c", "0", *doctor], env, work / "report1.json", args.repeat)
        r["grep_E_one_core"] = _median(["taskset", "-c", "0", "grep", "-E", "-c", "-f", str(work / "patterns.ere"),
                                        str(log)], env, work / "g1.txt", args.repeat)
    want, got = expected_ids(planted), found_ids(work / "report.json")
    r["missing"], r["unexpected"] = sorted(want - got), sorted(got - want)
    d, g = r["doctor"], r["grep_E"]
    r["s_per_gib"] = round(float(d["wall_s"]) * GIB / size, 2)  # type: ignore[index]
    r["cpu_s_per_gib"] = round(float(d["cpu_s"]) * GIB / size, 2)  # type: ignore[index]
    r["vs_grep"] = round(float(d["wall_s"]) / max(float(g["wall_s"]), 0.01), 2)  # type: ignore[index]
    if not args.keep:
        log.unlink()
    return r


def _table(results: list[dict[str, object]]) -> None:
    p = sys.stderr
    print(f"\n{'kind':12} {'MiB':>5} {'wall s':>7} {'cpu s':>6} {'s/GiB':>6} {'RSS':>6} {'grep-E':>7} {'xgrep':>6} "
          f"{'grep-Fi':>7} {'hs':>6} {'1core':>6}  found", file=p)
    for r in results:
        d = r["doctor"]
        print(f"{r['kind']:12} {int(r['bytes']) >> 20:>5} {d['wall_s']:>7} {d['cpu_s']:>6} {r['s_per_gib']:>6} "  # type: ignore
              f"{d['rss_mib']:>6} {r['grep_E']['wall_s']:>7} {r['vs_grep']:>6} {r['grep_F_i']['wall_s']:>7} "  # type: ignore
              f"{r.get('hyperscan_only', {}).get('wall_s', '-'):>6} {r.get('doctor_one_core', {}).get('wall_s', '-'):>6}  "  # type: ignore
              f"{_found(r)}",
              file=p)


def _found(r: dict[str, object]) -> str:
    if not r["missing"] and not r["unexpected"]:
        return "ok"
    return f"missing {r['missing']} unexpected {r['unexpected']}"


def budgets(results: list[dict[str, object]]) -> dict[str, object]:
    per_byte = [float(r["cpu_s_per_gib"]) for r in results]  # type: ignore[arg-type]
    spread = round(max(per_byte) / max(min(per_byte), 1e-9), 2) if per_byte else 0.0
    return {
        "per_kind": {str(r["kind"]): {"<=5s/GiB": float(r["s_per_gib"]) <= 5,  # type: ignore[arg-type]
                                       "<=3x_grep": float(r["vs_grep"]) <= 3,  # type: ignore[arg-type]
                                       "rss<=100MiB": float(r["doctor"]["rss_mib"]) <= 100,  # type: ignore[index]
                                       "found": not r["missing"] and not r["unexpected"]} for r in results},
        "cpu_per_byte_spread": spread, "spread<=3x": spread <= 3,
    }


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--hs-only":
        print(hs_only(Path(sys.argv[2]), Path(sys.argv[3])))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=biglog.parse_size, default=64 << 20, help="bytes per log (default 64MiB; the budget: 1GiB)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per command, the median CPU time is kept")
    ap.add_argument("--one-core", action="store_true", help="also time the doctor and grep under taskset -c 0")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs cudnn-doctor")
    ap.add_argument("--out", type=Path, help="directory for the logs and results (default: a temp dir, removed)")
    ap.add_argument("--keep", action="store_true", help="keep the logs")
    args = ap.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="cudnn-doctor-kinds-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C", CUDNN_DOCTOR_CACHE_DIR=str(work / "cache"))
    from cudnn_doctor.kb.compiled import load_catalog

    pats = biglog.grep_patterns(load_catalog(), work / "patterns.ere")
    n_lits = tool_literals(work / "literals.txt")
    subprocess.run([args.python, "-m", "cudnn_doctor", "diagnose", "--exit-zero", "-"], input=b"x\n", env=env,
                   capture_output=True, check=False)  # the catalog cache, as every run after the first
    results = []
    try:
        for kind in args.kinds.split(","):
            print(f"{kind} ...", file=sys.stderr, flush=True)
            results.append(run_kind(kind, args, work, env))
    finally:
        if not args.out and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    _table(results)
    out = {"size": args.size, "cpus": os.cpu_count(), "grep_patterns": pats, "literals": n_lits,
           "load": os.getloadavg(), "results": results, "budgets": budgets(results)}
    print(json.dumps(out, indent=1))
    b = out["budgets"]
    return 0 if b["spread<=3x"] and all(all(v.values()) for v in b["per_kind"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
