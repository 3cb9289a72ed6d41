"""The differential of a generic cuDNN status: the causes it could be, and what this log says about each.

``CUDNN_STATUS_BAD_PARAM from cudnnRNNForwardTraining`` is true and useless on its own. A generic status
signature therefore carries its candidate causes: every specific-cause signature whose ``cause.of`` names it,
plus its own ``differential`` entries (causes without a signature of their own). When no specific cause won,
the finding shows them, most-confirmed first (the number of threads that found each), each with the one
check that tells it apart, and marks the ones this log already rules out:

* by version: the cause's ``applies`` / ``fixed_in`` (or the entry's ``applies``) against the versions read
  from the log or given with ``--env``;
* by a line: an entry's ``ruled_out_by`` regex matches a line of the finding's context;
* by absent evidence, only where absence is decisive: the cause needs a frame or call in the traceback
  (``context.require_any`` beyond the generic's own), and the log holds the *whole* Python traceback that
  ends at the error, yet none of it is there. In a log holding only the last line, absence proves nothing:
  the candidate stays open, with a note saying where its evidence would be.

When a specific cause matched (with its evidence), it outranks the generic status: the generic finding is
folded into the cause's ``related`` and shows no differential. A matched signature that a generic's
``differential`` names (``signature:``) counts as such a cause too.

Which signatures are generic status signatures is defined here, once (:data:`GENERIC_STATUS`,
:func:`is_generic_status`); ``validate --strict`` holds the knowledge base to it.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from ..kb.patterns import LazyRe
from ..kb.regexinfo import WILD, examples
from ..model import Candidate, Finding, Signature, localized, specificity
from .teardown import TRACEBACK_HEAD

if TYPE_CHECKING:
    from typing import Any

# The generic status signatures on the RNN path: they report that a cuDNN RNN call returned a status (or
# that a wrapper's cuDNN RNN call failed) without saying why. Each must carry a differential of at least
# MIN_RNN_CAUSES causes (validate --strict).
GENERIC_RNN_STATUS: frozenset[str] = frozenset(
    {
        "cudnn/rnn-status-alloc-failed",
        "cudnn/rnn-status-arch-mismatch",
        "cudnn/rnn-status-bad-param",
        "cudnn/rnn-status-execution-failed",
        "cudnn/rnn-status-internal-error",
        "cudnn/rnn-status-invalid-value",
        "cudnn/rnn-status-license-error",
        "cudnn/rnn-status-mapping-error",
        "cudnn/rnn-status-not-initialized",
        "cudnn/rnn-status-not-supported",
        "cudnn/rnn-status-runtime-fp-overflow",
        "cudnn/rnn-status-runtime-in-progress",
        "cudnn/rnn-status-runtime-prerequisite-missing",
        "cudnn/rnn-status-version-mismatch",
        "pytorch/cudnn-rnn-bad-param",
        "pytorch/cudnn-rnn-execution-failed",
        "tensorflow/then-rnn-forward-failed",
        "tensorflow/then-rnn-backward-failed",
        "tensorflow/cudnn-rnn-call-execution-failed",
        "tensorflow/cudnn-rnn-internal-check-failed",
        "tensorflow/fail-to-find-dnn-implementation",
        "jax/rnn-cudnn-call-failed",
        "mxnet/rnn-cudnn-status",
        "paddle/rnn-cudnn-status",
        "paddle/rnn-cudnn-execution-failed",
        "cupy/cudnn-rnn-status",
        "flux/cudnn-rnn-status-error",
        "onnxruntime/rnn-cudnn-failure",
    }
)
# The general (any cuDNN call) status signatures: the finding when a log holds only the status line.
GENERIC_CUDNN_STATUS: frozenset[str] = frozenset(
    {
        "cudnn/status-alloc-failed",
        "cudnn/status-arch-mismatch",
        "cudnn/status-bad-param",
        "cudnn/status-check-failed",
        "cudnn/status-execution-failed",
        "cudnn/status-internal-error",
        "cudnn/status-mapping-error",
        "cudnn/status-not-initialized",
        "cudnn/status-not-supported",
        "cudnn/status-other",
        "cudnn/status-version-mismatch",
    }
)
GENERIC_STATUS = GENERIC_RNN_STATUS | GENERIC_CUDNN_STATUS
MIN_RNN_CAUSES = 3
_SEARCH_TIMEOUT = 0.2
NON_RNN_TAIL = 12
NEAR_BEFORE, NEAR_AFTER = 5, 60  # lines: a matched cause outranks a generic status this close after it  # lines up to the error where a convolution/CTC/... frame says the call was not an RNN


def is_generic_status(sig: Signature) -> bool:
    """A generic status signature: listed above, or (a user's) carrying a differential; never a cause."""
    return sig.cause is None and (sig.id in GENERIC_STATUS or bool(sig.differential))


def is_generic_rnn_status(sig: Signature) -> bool:
    return is_generic_status(sig) and (sig.id in GENERIC_RNN_STATUS or sig.scope == "rnn")


def is_cross_framework_rnn_status(sig: Signature) -> bool:
    """A generic RNN status of no one framework (cudnn/rnn-status-*): what a framework's own status signature
    outranks (rank/wrappers.py, ``_with_outranked``)."""
    return sig.framework == "any" and is_generic_rnn_status(sig)


def causes_of(signatures: Iterable[Signature]) -> dict[str, list[Signature]]:
    """Generic id -> the cause signatures whose ``cause.of`` names it."""
    out: dict[str, list[Signature]] = {}
    for sig in signatures:
        if sig.cause is not None:
            for gid in sig.cause.of:
                out.setdefault(gid, []).append(sig)
    return out


def candidates(
    sig: Signature, lookup: Mapping[str, Signature], causes: Mapping[str, list[Signature]], lang: str = "en", *, depth: int = 0
) -> list[Candidate]:
    """The unassessed differential of ``sig``, most-confirmed first (ties keep the written order).

    An entry whose ``signature`` is itself a generic status (the general BAD_PARAM naming the RNN one) brings
    that one's candidates in, one level deep, and is a candidate itself after them (the RNN twin: is the failing
    call an RNN one? It needs the twin's evidence, so a whole traceback without it rules it out)."""
    out: list[Candidate] = []
    index: dict[str, Candidate] = {}

    def add(c: Candidate) -> None:
        if c.id and c.id in index:
            have = index[c.id]
            have.threads = tuple(dict.fromkeys(have.threads + c.threads))
            return
        if c.id:
            index[c.id] = c
        out.append(c)

    for cs in causes.get(sig.id, ()):
        add(_cause_candidate(cs, sig, lang))
    for e in sig.differential:
        target = lookup.get(e.signature) if e.signature else None
        if target is not None and depth == 0 and is_generic_status(target) and target.id != sig.id:
            for c in candidates(target, lookup, causes, lang, depth=1):
                if c.rnn is None:
                    c.rnn = e.rnn if e.rnn is not None else target.scope == "rnn"
                add(c)
            twin = _entry_candidate(e, target, lang)  # after its own causes: the most confirmed of them lead
            twin.needs = tuple(x for x in target.context.require_any if x not in sig.context.require_any)
            add(twin)
        else:
            add(_entry_candidate(e, target, lang))
    out.sort(key=lambda c: -len(c.threads))
    return out


def _cause_candidate(cs: Signature, sig: Signature, lang: str) -> Candidate:
    """A cause that names ``sig`` in its ``cause.of``."""
    assert cs.cause is not None
    own = set(sig.context.require_any)
    return Candidate(cause=cs.text("title", lang) or cs.title, check=localized(cs.cause, "check", lang), id=cs.id,
                     family=cs.cause.family, rnn=cs.scope == "rnn", threads=cs.cause.threads, applies=cs.applies,
                     fixed_in=cs.fixed_in, needs=tuple(x for x in cs.context.require_any if x not in own),
                     apis=api_names(cs.regex), framework=cs.framework)


def _entry_candidate(e: Any, target: Signature | None, lang: str) -> Candidate:
    """An entry of a generic status' own ``differential`` (``target``: the signature it names, if any)."""
    family = target.cause.family if target is not None and target.cause is not None else ""
    return Candidate(
        cause=localized(e, "cause", lang),
        check=localized(e, "check", lang),
        id=e.signature, family=family, rnn=e.rnn, threads=e.threads,
        applies=e.applies + (target.applies if target is not None else ()),
        fixed_in=target.fixed_in if target is not None else (),
        ruled_out_by=e.ruled_out_by, framework=target.framework if target is not None else "",
    )


# --------------------------------------------------------------------------- assessment


def _version_reason(applies: Iterable[tuple[str, str]], fixed_in: Iterable[tuple[str, str]], versions: Mapping[str, str]) -> str:
    from .findings import version_in

    for component, spec in applies:
        have = versions.get(component)
        if have is not None and version_in(have, spec) is False:
            return f"it needs {component} {spec}; the log shows {component} {have}"
    for component, fixed in fixed_in:
        have = versions.get(component)
        if have is not None and version_in(have, f">={fixed}") is True:
            return f"fixed in {component} {fixed}; the log shows {component} {have}"
    return ""


def search_patterns(signatures: Iterable[Signature], evidence: Mapping[str, tuple[str, ...]]) -> Iterator[str]:
    """Every pattern _search may compile for a catalog (compiled._warm_patterns keeps them in the catalog
    cache: a pasted bare cuDNN status then compiles nothing): the ``@non_rnn`` set, each candidate's needed
    evidence (its signature's ``require_any``) and each entry's ``ruled_out_by``."""
    items = ["@non_rnn"]
    for sig in signatures:
        items += sig.context.require_any
        for e in sig.differential:
            items += e.ruled_out_by
    for item in dict.fromkeys(items):
        yield from evidence.get(item[1:], ()) if item.startswith("@") else (item,)


def _search(patterns: Iterable[str], text: str, evidence: Mapping[str, tuple[str, ...]]) -> str | None:
    """The first text any pattern (or ``@set``) finds in ``text``, or None."""
    from ..kb.patterns import compile_pattern

    for item in patterns:
        parts = evidence.get(item[1:], ()) if item.startswith("@") else (item,)
        for part in parts:
            try:
                m = compile_pattern(part, ("IGNORECASE",)).search(text, timeout=_SEARCH_TIMEOUT)
            except Exception:  # regex.error, TimeoutError: a bad pattern never rules anything out
                continue
            if m is not None:
                return m.group(0).strip() or part
    return None


_API = LazyRe(r"cudnn[A-Z][A-Za-z0-9]+")


def api_names(pattern: str) -> tuple[str, ...]:
    """The cuDNN calls named literally in a regex (``cudnnRNNBackward(?:Data|Weights)`` gives the stem)."""
    return tuple(dict.fromkeys(_API.findall(pattern)))


def _same_call(a: str, b: str) -> bool:
    """cudnnRNNForwardTraining ~ cudnnRNNForwardTrainingEx ~ cudnnRNNForwardTraining_v8: one call."""
    a, b = a.split("_v")[0], b.split("_v")[0]
    return a.startswith(b) or b.startswith(a)


# a frame's file; a frame's other marks and a call (a call, '.cpu()', is no file: the user's code may make it
# where the traceback does not show)
_PATHS = r"\\\.py|\.py\b|\\\.jl|\.jl\b|\\\.lua|\.lua\b|\[/\\\\"
_PATH_MARKS = LazyRe(_PATHS)
_FRAME_MARKS = LazyRe(_PATHS + r"|\bFile\b|\bline\b|\bin function\b|::|\\\(")


def frame_like(item: str) -> bool:
    """Whether a context item is traceback evidence (a frame, a path, a call): then a whole traceback
    without it is decisive. A version, a GPU name or a flag lives elsewhere in a log (or nowhere in it), and
    a pattern spanning lines (``[\\s\\S]*?``: this GPU ... that dtype) is about the whole log, not a frame."""
    if "[\\s\\S]" in item or "(?s" in item:
        return False
    return item.startswith("@") or bool(_FRAME_MARKS.search(item))


def _frame_part_absent(item: str, log: _Log) -> bool:
    """Whether a pattern spanning lines (``A[\\s\\S]*?B``: a frame, then a value) needs a frame's file that the log
    does not hold: the pattern matches only where each of its parts does, so a whole traceback without that frame rules
    its cause out as it does one that needs the frame alone (a PyTorch 0.x frame and a CPU tensor, under a 2.x
    traceback)."""
    return any(_PATH_MARKS.search(part) and _search((part,), log.text, log.evidence) is None for part in _spanned(item))



def _spanned(item: str) -> list[str]:
    """The parts of a pattern that ``[\\s\\S]*?`` joins outside any group, in order (none where it joins none)."""
    parts, depth, at, i = [], 0, 0, 0
    while i < len(item):
        if item.startswith("[\\s\\S]*?", i) and depth == 0:
            parts.append(item[at:i])
            i = at = i + len("[\\s\\S]*?")
            continue
        if item[i] == "\\":
            i += 1
        elif item[i] == "[":  # a class: its brackets and parentheses are characters ('[^]...]', '[\\]]' too)
            i += 2 if item.startswith("[^", i) else 1
            i += 1 if item.startswith("]", i) else 0
            while i < len(item) and item[i] != "]":
                i += 2 if item[i] == "\\" else 1
        elif item[i] in "()":
            depth += 1 if item[i] == "(" else -1
        i += 1
    return [*parts, item[at:]] if parts else []


# a traceback of the backward pass: autograd runs the RNN's backward in C++, so the forward frames a cause
# names (the user's call, rnn.py) are not in it even when that cause is the one
_BACKWARD = LazyRe(r"\.backward\(|run_backward|autograd[/\\]__init__\.py|in backward\b|_backward_pass|gradients_util\.py")


# frameworks that can be the same run: Keras 3 runs on TensorFlow, PyTorch or JAX; Chainer runs on CuPy
_SAME_RUN = {
    "keras": {"tensorflow", "pytorch", "jax", "tensorflow-directml"},
    "tensorflow-directml": {"tensorflow", "keras"},
    "chainer": {"cupy"},
}
_GENERAL = {"", "any", "cudnn", "cuda"}
# a traceback frame's package: the framework that raised the error
_FRAME_PACKAGE = LazyRe(
    r"(?:^|(?<=[\s/\\'\"(]))(torch|tensorflow|tensorflow_core|tf_keras|keras|jax|jaxlib|flax|mxnet|paddle|chainer|cupy|cupy_backends"
    r"|onnxruntime)[/\\]|\b(Flux|CuArrays|CUDA)[/\\][^\n]*\.jl\b"
)
_PACKAGE_FRAMEWORK = {
    "torch": "pytorch", "tensorflow": "tensorflow", "tensorflow_core": "tensorflow", "tf_keras": "keras",
    "keras": "keras", "jax": "jax", "jaxlib": "jax", "flax": "jax", "mxnet": "mxnet", "paddle": "paddlepaddle",
    "chainer": "chainer", "cupy": "cupy", "cupy_backends": "cupy", "onnxruntime": "onnxruntime",
    "Flux": "julia-flux", "CuArrays": "julia-flux", "CUDA": "julia-flux",
}


def same_run(a: str, b: str) -> bool:
    """Whether a cause of framework ``a`` can be behind an error raised in framework ``b``."""
    if a in _GENERAL or b in _GENERAL or a == b:
        return True
    return b in _SAME_RUN.get(a, ()) or a in _SAME_RUN.get(b, ())


def error_frameworks(finding: Finding, lookup: Mapping[str, Signature], context: Sequence[str]) -> set[str]:
    """The frameworks the error itself shows: the signatures that matched it and its traceback's packages
    (not the versions a log lists: a pip freeze names every framework installed)."""
    out = {s.framework for s in (lookup.get(i) for i in (finding.id, *finding.related)) if s is not None}
    for line in context:
        if "/" not in line and "\\" not in line:  # a package's path needs one (the pattern tries every character)
            continue
        for m in _FRAME_PACKAGE.finditer(line):
            out.add(_PACKAGE_FRAMEWORK[m.group(1) or m.group(2)])
    return out - _GENERAL


def whole_traceback(context: Sequence[str]) -> str:
    """What ``context`` (the lines up to the error) holds of the Python traceback ending there: "forward" (all
    of it, from its head), "backward" (all of it, but of the backward pass: no forward frames) or ""."""
    head = max((i for i, line in enumerate(context) if line.lstrip().startswith(TRACEBACK_HEAD)), default=-1)
    if head < 0:
        return ""
    return "backward" if any(_BACKWARD.search(line) for line in context[head:]) else "forward"


def assess(
    found: list[Candidate],
    generic: Signature,
    versions: Mapping[str, str],
    context: Sequence[str],
    evidence: Mapping[str, tuple[str, ...]],
    failing_call: str = "",
    frameworks: Iterable[str] = (),
) -> list[Candidate]:
    """Mark the candidates this log rules out (versions, ``ruled_out_by`` lines, the failing cuDNN call the
    log names, decisive absent evidence).

    ``context``: the lines up to and including the error (its traceback); ``failing_call``: the cuDNN call
    the status line names (the generic's ``api`` capture), if any; ``frameworks``: those the error shows (a
    cause of another framework is ruled out). Ruled-out candidates go last."""
    text = "\n".join(context)
    # a non-RNN cuDNN call right at the error (the tail of its traceback) rules the RNN causes out
    tail = "\n".join(context[-NON_RNN_TAIL:])
    non_rnn = _search(("@non_rnn",), tail, evidence) if generic.scope != "rnn" and "non_rnn" in evidence else None
    log = _Log(versions, text, whole_traceback(context), evidence, failing_call, set(frameworks), non_rnn)
    for c in found:
        reason = _decisive_reason(c, log)
        if not reason and c.needs:
            reason = _evidence_verdict(c, log)
        if not reason and not c.note:
            c.note = _version_note(c, versions)
        c.ruled_out = reason
    return sorted(found, key=lambda c: bool(c.ruled_out))


if TYPE_CHECKING:
    from typing import NamedTuple

    class _Log(NamedTuple):
        """What a log shows that rules candidate causes in or out (``assess``)."""

        versions: Mapping[str, str]
        text: str  # the lines up to the error
        full: str  # whole_traceback of those lines
        evidence: Mapping[str, tuple[str, ...]]
        failing_call: str
        frameworks: set[str]
        non_rnn: str | None  # a non-RNN cuDNN call at the error

else:  # typing.NamedTuple's class, without importing typing (start-up)
    _Log = namedtuple("_Log", ("versions", "text", "full", "evidence", "failing_call", "frameworks", "non_rnn"))


def _decisive_reason(c: Candidate, log: _Log) -> str:
    """Why the log rules ``c`` out by what it shows ('' when nothing it shows does): the first of _RULED_OUT."""
    for rule in _RULED_OUT:
        reason = rule(c, log)
        if reason:
            return reason
    return ""


def _by_version(c: Candidate, log: _Log) -> str:
    return _version_reason(c.applies, c.fixed_in, log.versions)


def _by_line(c: Candidate, log: _Log) -> str:
    hit = _search(c.ruled_out_by, log.text, log.evidence) if c.ruled_out_by else ""
    return f"the log shows {hit[:120]!r}" if hit else ""


def _by_framework(c: Candidate, log: _Log) -> str:
    fws = log.frameworks
    if fws and c.framework not in _GENERAL and not any(same_run(c.framework, f) for f in fws):
        return f"a {c.framework} cause; the error comes from {', '.join(sorted(fws))}"
    return ""


def _by_call(c: Candidate, log: _Log) -> str:
    if log.failing_call and c.apis and not any(_same_call(log.failing_call, a) for a in c.apis):
        return f"the log names {log.failing_call} as the failing call; this cause is in {', '.join(c.apis[:3])}"
    return ""


def _by_rnn(c: Candidate, log: _Log) -> str:
    return f"the error comes from a non-RNN cuDNN call ({log.non_rnn[:80]!r})" if c.rnn and log.non_rnn else ""


_RULED_OUT = (_by_version, _by_line, _by_framework, _by_call, _by_rnn)


def _evidence_verdict(c: Candidate, log: _Log) -> str:
    """For a cause that needs evidence: a note on where it is (or would be), or the reason it is ruled out (the
    whole forward traceback is in the log without it)."""
    seen = _search(c.needs, log.text, log.evidence)
    if seen is not None:
        c.note = f"its evidence is in this log ({seen[:80]!r})"
        return ""
    shown = evidence_words(c.needs)
    in_traceback = all(frame_like(x) or _frame_part_absent(x, log) for x in c.needs)
    if log.full == "forward" and in_traceback:
        return f"the whole traceback is in the log and shows none of its evidence ({shown})"
    if log.full == "backward" and in_traceback:
        c.note = f"its evidence ({shown}) is in the forward pass, which this backward traceback does not show"
    elif in_traceback:
        c.note = f"its evidence ({shown}) would be in the full traceback, which this log does not hold"
    else:
        c.note = f"its evidence ({shown}) is not in the lines up to the error; look for it in the whole log"
    return ""


# what each named evidence set of signatures/_evidence.yaml ('@name' in a context) is, in words a report shows
EVIDENCE_WORDS = {
    "rnn": "an RNN frame or call (rnn.py, _VF.lstm/gru, flatten_parameters, cudnnRNN...)",
    "rnn_under_apply": "a status under Module._apply frames (.cuda(), .to())",
    "non_rnn": "a non-RNN cuDNN call (convolution, batch norm, attention)",
}


def evidence_words(needs: Iterable[str], width: int = 160) -> str:
    """A cause's needed evidence as a report says it, in about ``width`` characters: a named set ('@rnn') by what
    it is, a pattern by texts it matches ('cuda:1', 'device=1': regexinfo's ``examples``), or as written where it
    has none."""
    said: list[str] = []
    for x in needs:
        if x.startswith("@"):
            said.append(EVIDENCE_WORDS.get(x[1:], f"the evidence named {x[1:]!r}"))
        else:
            said += [_quoted(e.replace(WILD, "…")) for e in examples(x, ("IGNORECASE",))] or [x]  # (as ``_search`` reads it)
    shown = ", ".join(said)
    if len(shown) <= width:
        return shown
    # cut between whole items (an example may hold ', ' itself: '_VF.lstm(…, batch_sizes'); a first item over the
    # width cut within it
    n = sum(len(", ".join([*said[: k + 1], "…"])) <= width for k in range(len(said)))
    return ", ".join([*said[:n], "…"]) if n else shown[: width - 1] + "…"


def _quoted(example: str) -> str:
    """An example between quote marks it does not hold ("Could not load dynamic library 'cudnn'")."""
    return f'"{example}"' if "'" in example else f"'{example}'"


def _version_note(c: Candidate, versions: Mapping[str, str]) -> str:
    """A cause told apart by versions the log does not show: says so ('' otherwise)."""
    unknown = sorted({comp for comp, _ in c.applies + c.fixed_in if comp not in versions})
    if not unknown:
        return ""
    ranges = "; ".join(f"{comp} {spec}" for comp, spec in c.applies) or "; ".join(f"{comp} < {v}" for comp, v in c.fixed_in)
    return f"it depends on the version ({ranges}), which the log does not show"


def version_only(sig: Signature, lookup: Mapping[str, Signature]) -> bool:
    """Whether a cause is told apart from its generic(s) by a release range alone: the same regex as one of
    them and no context of its own. Such a cause cannot win without the version in the log."""
    if sig.cause is None or not (sig.applies or sig.fixed_in):
        return False
    generic = [g for g in (lookup.get(i) for i in sig.cause.of) if g is not None]
    own = set(sig.context.require_any)
    return any(g.regex == sig.regex and own <= set(g.context.require_any) for g in generic)


def stand_ins(
    findings: list[Finding], lookup: Mapping[str, Signature], versions: Mapping[str, str], threshold: float
) -> list[Finding]:
    """A specific cause outside its version range (``applies`` / ``fixed_in`` against the log's versions) is
    ruled out, not merely less likely: it goes below ``threshold``, and where it had won its cluster the
    generic status it refines is put back in its place (the most specific of its ``related``: RNN scope, then
    priority), whose differential then says why this cause is ruled out. Returns those generic findings."""
    have = {(f.first.source, f.id) for f in findings}
    out: list[Finding] = []
    for f in findings:
        sig = f.signature
        if sig.cause is not None and not f.demoted and version_only(sig, lookup):
            _undecided(f, versions)
        if sig.cause is None or not f.demoted:
            continue
        before = min(0.99, round(f.confidence + 0.35 * len(f.demoted), 2))
        f.confidence = min(f.confidence, round(threshold - 0.01, 2))
        got = _stand_in(f, lookup, before)
        if got is not None and (f.first.source, got.id) not in have:
            have.add((f.first.source, got.id))
            out.append(got)
    return out


def _stand_in(f: Finding, lookup: Mapping[str, Signature], confidence: float) -> Finding | None:
    """The generic status a ruled-out cause refines, in its place: the most specific of its ``related``."""
    generic = [g for g in (lookup.get(r) for r in f.related) if g is not None and is_generic_status(g)]
    if not generic:
        return None
    best = max(generic, key=lambda g: (g.scope == "rnn", specificity(g)))
    related = [f.id] + [r for r in f.related if r != best.id]
    return Finding(signature=best, first=f.first, last=f.last, count=f.count, confidence=confidence,
                   evidence=list(f.evidence), related=related)


def _undecided(f: Finding, versions: Mapping[str, str]) -> None:
    """A cause whose only evidence is a version the log does not show: not ruled out, undecided (the generic
    status stands in for it)."""
    sig = f.signature
    components = sorted({c for c, _ in sig.applies + sig.fixed_in})
    if not any(c in versions for c in components):
        f.demoted.append(
            f"its evidence is the {'/'.join(components)} version, which the log does not show (--env "
            f"{components[0]}=X.Y tells)"
        )
        f.confidence += 0.35  # the generic stands in below


def _near(cause: Finding, generic: Finding) -> bool:
    """Whether ``generic`` is the same error as ``cause`` or follows it closely (the status it led to): the
    same cause 200,000 lines away in a long log explains nothing about this status."""
    return cause.first.line - NEAR_BEFORE <= generic.last.line and generic.first.line <= cause.last.line + NEAR_AFTER


def attach(
    findings: list[Finding],
    catalog_signatures: Sequence[Signature],
    evidence: Mapping[str, tuple[str, ...]],
    versions: Mapping[str, str],
    contexts: Mapping[tuple[str, str], Sequence[str]],
    lang: str = "en",
) -> list[Finding]:
    """Fold generic findings under the specific cause that matched just before them (or on the same error) in
    the same source; give the remaining generic findings their assessed differential. Returns the findings
    still on top (order kept)."""
    folded = _fold_refined(findings)
    top = [f for f in findings if id(f) not in folded]
    generic = [f for f in top if is_generic_status(f.signature)]
    if not generic:
        return top
    lookup = {s.id: s for s in catalog_signatures}
    causes = causes_of(catalog_signatures)
    for f in generic:
        found = _with_outranked(f, candidates(f.signature, lookup, causes, lang), lookup, causes, lang)
        context = list(contexts.get((f.first.source, f.id), ()))
        if f.first.text and (not context or f.first.text.splitlines()[-1] not in context[-1]):
            context.append(f.first.text)
        call = f.captures.get("api") or ""
        call = call if call.startswith("cudnn") else ""
        frameworks = error_frameworks(f, lookup, context)
        f.differential = assess(found, f.signature, versions, context, evidence, call, frameworks)
    return top


def _with_outranked(
    f: Finding, found: list[Candidate], lookup: Mapping[str, Signature], causes: Mapping[str, list[Signature]], lang: str
) -> list[Candidate]:
    """A framework's status signature that outranked the cross-framework status of the same error (in its
    ``related``) also shows that one's candidates of its own framework (a Chainer cause written against
    cudnn/rnn-status-bad-param under cupy/cudnn-rnn-status): its own differential is the rest."""
    known = {c.id for c in found if c.id}
    more = []
    for rid in f.related:
        g = lookup.get(rid)
        if g is None or g.id == f.id or not is_cross_framework_rnn_status(g):
            continue
        for c in candidates(g, lookup, causes, lang):
            sig = lookup.get(c.id) if c.id else None
            if sig is not None and c.id not in known and sig.framework not in _GENERAL and same_run(sig.framework, f.signature.framework):
                known.add(c.id)
                more.append(c)
    if not more:
        return found
    return sorted(found + more, key=lambda c: -len(c.threads))


def _fold_refined(findings: list[Finding]) -> set[int]:
    """The generic findings (by id()) that a specific cause near them in the same source refines: each is
    named in that cause's ``related``."""
    folded: set[int] = set()
    by_source: dict[str, list[Finding]] = {}
    for f in findings:
        by_source.setdefault(f.first.source, []).append(f)
    for group in by_source.values():
        for cause in group:
            if id(cause) not in folded and not is_generic_status(cause.signature):
                _fold_under(cause, group, folded)
    return folded


def _fold_under(cause: Finding, group: list[Finding], folded: set[int]) -> None:
    """Fold into ``cause`` the generic findings of ``group`` near it that it refines."""
    refines = set(cause.signature.cause.of) if cause.signature.cause is not None else set()
    for other in group:
        if other is cause or id(other) in folded or not _near(cause, other):
            continue
        if other.id in refines or any(e.signature == cause.id for e in other.signature.differential):
            folded.add(id(other))
            if other.id not in cause.related:
                cause.related.append(other.id)


def candidate_record(c: Candidate) -> dict[str, Any]:
    """A candidate as the JSON record shows it (report.py; records.CandidateRecord)."""
    return {
        "id": c.id or None,
        "cause": c.cause,
        "family": c.family or None,
        "rnn": c.rnn,
        "check": c.check,
        "threads": list(c.threads),
        "thread_count": len(c.threads),
        "ruled_out": bool(c.ruled_out),
        "ruled_out_reason": c.ruled_out,
        "note": c.note,
    }
