"""The fuzz harness: mutated real logs through the library's entry points and the command line.

Seeds are the development corpus (tests/fixtures/corpus, and the whole corpus where it is beside the checkout
or named by $CUDNN_DOCTOR_CORPUS). Each input is a seed log mutated the ways logs reach users (cut, wrapped,
quoted, escaped, control bytes, huge lines, CRLF, invalid UTF-8, interleaved) and goes through one target in
turn: ``diagnose`` on str and on bytes, every renderer, the signature loader (a mutated signature file), and
the command line (``cli.entry.main`` in this process, on the input written to a file).

What counts, per input: a crash (an exception out of the library other than the InputError/SignatureError it
documents; out of the command line, any exception or an exit code other than 0/1/2), an input over
SLOW_CPU_S of CPU, and an RNN-specific finding on an input built from negative logs only. tests/test_fuzz.py
runs a short seeded run; bench/fuzz.py a long one in several processes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLOW_CPU_S = 3.0
WINDOW = 6000  # characters of a seed most inputs start from
HEADER = "# cudnn-doctor-expect:"


@dataclass
class Seed:
    name: str
    text: str
    negative: bool


def seeds() -> list[Seed]:
    """The corpus logs with their polarity: the repository's copy, plus the whole corpus where it is."""
    out: dict[str, Seed] = {}
    for path in sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.log")):
        header, _, log = path.read_text(encoding="utf-8", errors="replace").partition("\n")
        head = header.split(":", 1)[1].partition(" xfail=")[0] if header.startswith(HEADER) else ""
        fields = dict(item.split("=", 1) for item in head.split())  # xfail=<reason> is the rest of the line
        out[path.stem] = Seed(path.stem, log, fields.get("polarity") == "negative")
    full = Path(os.environ.get("CUDNN_DOCTOR_CORPUS") or ROOT.parent / "shared" / "corpus")
    cases = full / "cases.jsonl"
    if cases.is_file():
        for line in cases.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            log = full / f"{case['case']}.log"
            if log.is_file():
                text = log.read_text(encoding="utf-8", errors="replace")
                out[case["case"]] = Seed(case["case"], text, case.get("polarity") == "negative")
    return list(out.values())


# --------------------------------------------------------------------------- mutations

CONTROLS = "".join(chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32), 127))


def _lines(text: str) -> list[str]:
    return text.splitlines() or [""]


def cut(r: random.Random, text: str) -> str:
    """A window of the log, cut anywhere (mid-line, mid-word)."""
    a = r.randrange(len(text) + 1)
    return text[a : a + r.choice((40, 200, 1000, 5000))]


def slice_lines(r: random.Random, text: str) -> str:
    lines = _lines(text)
    a = r.randrange(len(lines))
    return "\n".join(lines[a : a + r.randrange(1, 80)])


def wrap(r: random.Random, text: str) -> str:
    """Hard-wrapped at a width, with or without a CI prefix on every piece."""
    width = r.choice((40, 72, 80, 120, 200))
    prefix = r.choice(("", "2024-05-14T09:12:01.1234567Z ", "[rank0]: ", "| "))
    out = []
    for line in _lines(text):
        out += [prefix + line[i : i + width] for i in range(0, max(1, len(line)), width)]
    return "\n".join(out)


def quote(r: random.Random, text: str) -> str:
    """As pasted into an issue, a chat or a notebook: markdown quote, fence, bullets, JSON strings."""
    how = r.randrange(5)
    if how == 0:
        return "\n".join("> " + line for line in _lines(text))
    if how == 1:
        return "```\n" + text + "\n```"
    if how == 2:
        return "\n".join("- " + line for line in _lines(text))
    if how == 3:
        return json.dumps({"output_type": "error", "traceback": _lines(text)})
    return "\n".join(f"{i + 1:>4} | {line}" for i, line in enumerate(_lines(text)))


def escape(r: random.Random, text: str) -> str:
    """HTML entities, escaped newlines, ANSI colours, smart quotes, non-breaking spaces."""
    how = r.randrange(5)
    if how == 0:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
    if how == 1:
        return text.replace("\n", "\\n")
    if how == 2:
        return "\n".join(f"\x1b[{r.choice((31, 1, 0, 33))}m{line}\x1b[0m" for line in _lines(text))
    if how == 3:
        return text.replace("'", "\u2019").replace('"', "\u201c")
    return text.replace(" ", "\u00a0")


def control(r: random.Random, text: str) -> str:
    """Control bytes, NULs and CRs sprinkled in."""
    chars = list(text)
    for _ in range(r.randrange(1, 20)):
        chars.insert(r.randrange(len(chars) + 1), r.choice(CONTROLS + "\r\x00"))
    return "".join(chars)


def huge(r: random.Random, text: str) -> str:
    """A huge line (a progress bar rewritten with CR for hours) somewhere in the log."""
    lines = _lines(text)
    bar = r.choice(("\r 45%|████▌     | 450/1000", "=" * 10, "x"))
    lines.insert(r.randrange(len(lines) + 1), bar * (r.choice((70_000, 200_000)) // len(bar)))
    return "\n".join(lines)


def crlf(r: random.Random, text: str) -> str:
    return text.replace("\n", r.choice(("\r\n", "\r", "\n\n")))


def repeat(r: random.Random, text: str) -> str:
    lines = _lines(text)
    i = r.randrange(len(lines))
    return "\n".join(lines[:i] + [lines[i]] * r.randrange(2, 500) + lines[i:])


def shuffle(r: random.Random, text: str) -> str:
    lines = _lines(text)
    r.shuffle(lines)
    return "\n".join(lines)


MUTATIONS: tuple[Callable[[random.Random, str], str], ...] = (
    cut, slice_lines, wrap, quote, escape, control, huge, crlf, repeat, shuffle,
)


def mutate(r: random.Random, pool: list[Seed]) -> tuple[str, bool, str]:
    """(text, built from negative logs only, what was done)."""
    seed = r.choice(pool)
    text, negative, done = seed.text, seed.negative, [seed.name]
    if len(text) > WINDOW and r.random() < 0.95:  # mostly a window of a big log: inputs sized for a long run
        a = r.randrange(len(text) - WINDOW)
        text = text[a : a + WINDOW]
    if r.random() < 0.1:  # two logs interleaved (two ranks' output)
        other = r.choice(pool)
        a, b = _lines(text), _lines(other.text)
        text = "\n".join(x for pair in zip(a, b, strict=False) for x in pair)
        negative, done = negative and other.negative, [*done, other.name]
    for _ in range(r.choice((1, 1, 2, 3))):
        m = r.choice(MUTATIONS)
        if m is huge and r.random() < 0.8:  # the costly one, rarer
            m = cut
        text = m(r, text)
        done.append(m.__name__)
    return text, negative, "+".join(done)


def to_bytes(r: random.Random, text: str) -> bytes:
    """The text as bytes a file may hold: UTF-8, with invalid sequences, or UTF-16 with a BOM."""
    data = text.encode("utf-8", "surrogatepass")
    how = r.randrange(4)
    if how == 0 and data:
        i = r.randrange(len(data))
        return data[:i] + bytes([r.choice((0x80, 0xC3, 0xFF, 0xED))]) + data[i:]
    if how == 1:
        return text.encode("utf-16", "surrogatepass")
    return data


# --------------------------------------------------------------------------- targets and checks


@dataclass
class Tally:
    inputs: int = 0
    crashes: int = 0
    slow: int = 0
    rnn_on_negative: int = 0
    by_target: dict[str, int] = field(default_factory=dict)
    examples: list[dict[str, str]] = field(default_factory=list)
    cpu_max_s: float = 0.0

    def note(self, kind: str, target: str, how: str, text: str, detail: str) -> None:
        if len(self.examples) < 20:  # the whole input (at most 1 MB): bench/fuzz.py writes each to a file
            self.examples.append({"kind": kind, "target": target, "how": how, "detail": detail[-2000:], "input": text[: 1 << 20]})

    def add(self, other: Tally) -> None:
        self.inputs += other.inputs
        self.crashes += other.crashes
        self.slow += other.slow
        self.rnn_on_negative += other.rnn_on_negative
        self.cpu_max_s = max(self.cpu_max_s, other.cpu_max_s)
        for k, v in other.by_target.items():
            self.by_target[k] = self.by_target.get(k, 0) + v
        self.examples += other.examples[: max(0, 20 - len(self.examples))]


class Harness:
    """Runs inputs through the targets in turn and tallies what went wrong."""

    TARGETS = ("diagnose_str", "diagnose_bytes", "render", "cli", "signature")

    def __init__(self, workdir: str) -> None:
        from cudnn_doctor.kb.compiled import load_catalog

        self.catalog = load_catalog()
        self.workdir = workdir
        self.tally = Tally()
        self.signature_text = (ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text()

    def run(self, r: random.Random, pool: list[Seed], target: str) -> None:
        text, negative, how = mutate(r, pool)
        start = time.process_time()
        try:
            findings = getattr(self, target)(r, text)
        except Exception as exc:  # a crash: anything the library does not document
            self.tally.crashes += 1
            self.tally.note("crash", target, how, text, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            findings = []
        took = time.process_time() - start
        self.tally.inputs += 1
        self.tally.by_target[target] = self.tally.by_target.get(target, 0) + 1
        self.tally.cpu_max_s = max(self.tally.cpu_max_s, took)
        if took > SLOW_CPU_S:
            self.tally.slow += 1
            self.tally.note("slow", target, how, text, f"{took:.2f} s CPU")
        rnn = [f for f in findings if f.get("scope") == "rnn"]
        if negative and rnn:
            self.tally.rnn_on_negative += 1
            self.tally.note("rnn-on-negative", target, how, text, ", ".join(f["id"] for f in rnn))

    def _diagnose(self, data: str | bytes) -> list[dict[str, str]]:
        from cudnn_doctor import diagnose
        from cudnn_doctor.errors import InputError

        try:
            d = diagnose(data, catalog=self.catalog)
        except InputError:  # documented: binary-looking data
            return []
        return [{"id": f.id, "scope": f.signature.scope} for f in (*d.findings, *(c for f in d.findings for c in f.consequences))]

    def diagnose_str(self, r: random.Random, text: str) -> list[dict[str, str]]:
        return self._diagnose(text)

    def diagnose_bytes(self, r: random.Random, text: str) -> list[dict[str, str]]:
        return self._diagnose(to_bytes(r, text))

    def render(self, r: random.Random, text: str) -> list[dict[str, str]]:
        from cudnn_doctor import diagnose
        from cudnn_doctor.errors import InputError
        from cudnn_doctor.render import Format, render
        from cudnn_doctor.report import build_report

        try:
            d = diagnose(text, catalog=self.catalog, lang=r.choice(("en", "zh")))
        except InputError:
            return []
        record = build_report(d)
        for fmt in Format:
            out = render(fmt, record, color=r.random() < 0.5)
            if fmt in (Format.json, Format.sarif, Format.gitlab):
                json.loads(out)
            if fmt is Format.github and any(line.startswith("::") and "::" not in line[2:] for line in out.splitlines()):
                raise AssertionError("a malformed workflow command")
        return [{"id": f["id"], "scope": f["scope"]} for f in record["findings"]]

    def cli(self, r: random.Random, text: str) -> list[dict[str, str]]:
        """cudnn-doctor diagnose on the input as a file, in this process: exit 0/1/2 and no traceback."""
        from cudnn_doctor.cli.entry import main

        path = os.path.join(self.workdir, r.choice(("job.log", "job.txt")))
        with open(path, "wb") as fh:
            fh.write(to_bytes(r, text))
        out, err = io.StringIO(), io.StringIO()
        fmt = r.choice(("json", "terminal", "github", "sarif", "junit", "markdown", "gitlab"))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["diagnose", "--no-config", "--format", fmt, path])
        if code not in (0, 1, 2) or "Traceback" in err.getvalue() or "internal error" in err.getvalue():
            raise AssertionError(f"exit {code}: {err.getvalue()[-1500:]}")
        if fmt == "json" and code != 2:
            return [{"id": f["id"], "scope": f["scope"]} for f in json.loads(out.getvalue())["findings"]]
        return []

    def signature(self, r: random.Random, text: str) -> list[dict[str, str]]:
        """A mutated signature file (the log's text spliced into a real one) through the loader: a
        SignatureError or a catalog, nothing else."""
        from cudnn_doctor.errors import SignatureError
        from cudnn_doctor.kb.compiled import load_catalog

        base = self.signature_text
        i = r.randrange(len(base))
        body = r.choice((base[:i] + text[:500] + base[i:], base[:i], text[:2000], base.replace("regex:", "regex: " + text[:80], 1)))
        folder = Path(self.workdir) / "sigs" / "user"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "x.yaml").write_text(body, encoding="utf-8", errors="surrogatepass")
        with contextlib.suppress(SignatureError):
            load_catalog([str(folder.parent)], builtin=False, use_env=False, use_cache=False)
        return []


# the targets' shares of the inputs (the command line and the loader cost more per input)
SCHEDULE = ("diagnose_str",) * 8 + ("diagnose_bytes",) * 7 + ("render",) * 3 + ("cli",) * 2


def run_inputs(count: int, seed: int, pool: list[Seed] | None = None, start: int = 0) -> Tally:
    """``count`` inputs from random seed ``seed``, the targets in turn (SCHEDULE; the signature loader for
    one input in 100)."""
    pool = pool or seeds()
    r = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="cudnn-doctor-fuzz-") as tmp:
        harness = Harness(tmp)
        for i in range(start, start + count):
            target = "signature" if i % 100 == 99 else SCHEDULE[i % len(SCHEDULE)]
            harness.run(r, pool, target)
    return harness.tally


if __name__ == "__main__":  # python tests/fuzzing.py COUNT SEED: a quick look
    tally = run_inputs(int(sys.argv[1]), int(sys.argv[2]))
    print(json.dumps(tally.__dict__, indent=1)[:5000])
