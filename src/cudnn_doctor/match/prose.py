"""The weakest tier of the tolerant reading: an error a user describes in a sentence or a title, its message
paraphrased or only partly quoted in the user's own words ('pack_padded_sequence requires the lengths to be on
the cpu', 'I got the "must be equal to input_size" error').

Read only in a paste where nothing else was found (no regex, no tolerant reading), and only on its prose
lines: a sentence or a title (read/frames.py's ``prose_line``: not a traceback, log or code line, not a question)
that says an error happened ('error', 'fails', 'requires', 'expected', 'not supported', 'cannot'). Such a line is
read for a signature when it

1. names one of the signature's *code names*: a function it is raised in (``raised_at``: '_pack_padded_sequence'
   read as 'pack_padded_sequence' too), or a name in code its message spells ('input_size', 'cudnnRNNForward',
   a name it quotes, 'lengths', where the line quotes it too; one of the closed set of names its regex takes as a
   value, 'CudnnRNN' of '(?P<op>(?:CudnnRNN|BlockLSTM|...)...)', where the line quotes it), one that tells
   something (CODE_BITS over the base's words; a word the base does not know counts as rare), and
2. holds, in any order, words of one of the signature's templates that tell something (RARE_BITS each, not a
   framework's name, not a link's nor a name in code's), PROSE_BITS in all and MIN_RARE of them besides the code name's (a name its messages spell
   counts only with a template that spells it: not 'set_detect_anomaly' of a hint after the message), and
3. quotes no message of the base as much as the tolerant reading reads (MIN_BITS in order), and is not made
   mostly (MESSAGE_SHARE) of the template's words: such a line is a message printed (a lookalike's, another's,
   its head cut), which that reading read or not; nor one of the signature's counter-examples (its
   ``lookalikes``) whole: the message of another error, the line's other words only around it.

It tells the signature apart where no other signature's template holds those words too (the code name's with
them, where it counts): then a finding marked ``described`` (its ``cut`` record: the lowest confidence, and a
request for the full message); else near misses naming the signatures it could be.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

from ..kb.patterns import LazyRe
from ..kb.templates import CODE_SHAPE, QUOTED_ONLY, code_names, messages, words
from ..model import Signature
from .chains import Recognizer, holds, word_ends

RARE_BITS = 4.5  # a template word that tells something ('length', 'cpu', 'equal'; not 'be', 'to', 'input')
PROSE_BITS = 11.0  # the information a description holds of its message at least, besides its code name
MIN_RARE = 2  # ... in this many words at least, the code name's apart
MESSAGE_SHARE = 0.6  # of a line's words its template's: the message itself (a head cut's rest), not a description
MAX_LINES = 200  # prose lines read per paste, at most
_CODE_TOKEN = LazyRe(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z0-9]*(?:_[A-Za-z0-9]+|[a-z][A-Z])[A-Za-z0-9_]*")
# a name in a line (a code name is one: looked up whole), with the quotes around it
_IDENT = LazyRe(r"""(?P<q>['`"])?(?<![A-Za-z0-9_])(?P<name>[A-Za-z0-9_]{4,})(?![A-Za-z0-9_])(?P<c>['`"])?""")
# what a line that names a code name holds: a name in code's shape, or a quote
_NAMING = LazyRe(lambda: CODE_SHAPE.pattern + r"""|['`"]""")
_URL = LazyRe(r"\b(?:https?://|www\.)\S+")


class Prose:
    """A base's code names and templates' words, for the prose lines of a paste (see the module's docstring;
    tolerant.Tolerant.described reads them)."""

    def __init__(self, sigs: Sequence[Signature], rec: Recognizer, min_bits: float) -> None:
        self.sigs, self.rec, self.min_bits = tuple(sigs), rec, min_bits  # ``min_bits``: what the tolerant reading reads

    def candidates(self, line: str) -> list[int]:
        """The signatures a prose line describes (one of whose code names it names) and those it could as well
        describe: another whose template holds the same words, named in the line too or of the same framework
        (the code name tells it)."""
        line = _URL.sub(" ", line)  # (a link's words are not the user's: 'https://pytorch.org/docs/stable/...')
        # (the base's code names made for such a line only)
        if not _NAMING.search(line) or not (named := self._named(line)):
            return []
        text = _CODE_TOKEN.sub(" ", line)  # (not a code name's own words: 'thnn_fused_lstm_cell_cuda')
        if self._quoting(text, tw := words(text)):
            return []  # a message (another's, or one its regex refused: a lookalike): the tolerant reading's to read
        # the line's own words, not its names in code, numbers or frameworks' names
        have = tuple(w for w, _a, _b in tw if w not in self._frameworks and not w.isdigit())
        got = [(idx, read) for idx, codes in named.items() if (read := self._told(idx, codes, line, have)) is not None]
        told = self._strongest(got, named)
        frameworks = {self.sigs[i].framework for i, _r in told}
        rivals = {idx for _i, read in told for idx in self._holding(read) if idx in named or self.sigs[idx].framework in frameworks}
        return sorted(rivals | {i for i, _r in told})

    def _strongest(self, got: list[tuple[int, tuple[float, frozenset[str]]]], named: dict[int, set[tuple[str, str]]]) -> list[tuple[int, frozenset[str]]]:
        """Of the signatures told (each with the information and the words read), the strongest, and each weaker
        one that read words the strongest did not (code names apart): information summed over other words does not
        tell which error the line describes ('... the input_size must be equal to the embedding dim expected by the
        lstm layer': 'equal', 'expected' of PyTorch's check; 'since', 'layer' of TF's 'input_size is unknown since
        the layer has not been built'); one that read less of the line is dropped."""
        most = max((read[0] for _i, read in got), default=0.0)
        code_words = {w for codes in named.values() for name, _k in codes for w, _a, _b in words(name)}  # (code names' words)
        top = frozenset().union(*(read[1] for _i, read in got if read[0] >= most), code_words)
        return [(idx, read[1]) for idx, read in got if read[0] >= most or not read[1] <= top]

    def _quoting(self, text: str, tw: list[tuple[str, int, int]]) -> bool:
        """Whether the line quotes a message of the base, in order, as much as the tolerant reading reads
        (``min_bits``): a message printed, which that reading read or not ('..., which is output 0 of
        CudnnBatchNormBackward, is at version 1; expected version 0 instead': not the RNN's grad_fn its regex
        wants; 'Detected unsupported operations ... StringToNumber': another op than the RNN's), not a user's
        description of one (``text``: the line less its names in code; ``tw``: its words)."""
        return any(c.bits >= self.min_bits for c in self.rec.chains(tw, word_ends(text, tw)))

    def _told(self, idx: int, codes: set[tuple[str, str]], line: str, have: tuple[str, ...]) -> tuple[float, frozenset[str]] | None:
        """(information, words) of the signature's template of which the line holds the most that tells it
        (with the words of a code name its template spells), where they are enough (PROSE_BITS in MIN_RARE
        words); else None, also where the line's words hold one of its counter-examples whole, in order: another
        error's message, the line's other words only around it ('# LSTM training: KerasParser has not supported
        operator [Lambda].'); ``have``: the line's own words."""
        got = [self._read(self._templates[tid], code, kind, have) for tid in self.rec.of.get(idx, ()) for code, kind in codes]
        best = max((g for g in got if g is not None), key=lambda g: g[0], default=None)
        if best is None or not (looks := self.sigs[idx].lookalikes):  # (the rarer check last)
            return best
        tw = [w for w, _a, _b in words(line)]
        return None if any(holds(look, tw) for look in looks) else best

    def _read(self, tpl: frozenset[str], code: str, kind: str, have: tuple[str, ...]) -> tuple[float, frozenset[str]] | None:
        """(information, words) the line's words ``have`` read of a template with a code name of ``kind``
        (kb/templates.py's ``spelt_names``), where they are enough."""
        code_words = frozenset(w for w, _a, _b in words(code))
        spelt = code_words <= tpl
        # not a name its messages spell outside this template ('set_detect_anomaly' of a hint after it), nor mostly
        # the message's own words: the message (its head cut), not the user's words for it
        if (not spelt and kind not in ("raised", "value")) or sum(w in tpl for w in have) >= MESSAGE_SHARE * len(have):
            return None
        rare = {w for w in tpl.intersection(have) - code_words if self.rec.weight.get(w, 0.0) >= RARE_BITS}
        bits = sum(self.rec.weight[w] for w in rare)
        if len(rare) < MIN_RARE or bits < PROSE_BITS:
            return None
        return bits, frozenset(rare | (code_words if spelt else set()))

    @cached_property
    def _frameworks(self) -> frozenset[str]:
        """The base's frameworks' names (stems): a description names one, it says nothing of the message
        ('pytorch' of a message's 'https://pytorch.org/docs/...')."""
        return frozenset(w for sig in self.sigs for w, _a, _b in words(sig.framework))

    def _holding(self, read: frozenset[str]) -> set[int]:
        """The signatures one of whose templates holds all the words ``read`` (never empty: MIN_RARE of them)."""
        return {o for tid, tpl in enumerate(self._templates) if read <= tpl for o in self.rec.owners[tid]}

    @cached_property
    def _templates(self) -> list[frozenset[str]]:
        """Each template's words, less those its signatures' messages spell only in a link: a link's words are not
        the message's ('docs' of 'https://pytorch.org/docs/stable/...' that PyTorch's packing check links: not the
        'docs' of '... per the docs' a user writes)."""
        link = [self._link_words(owners) for owners in self.rec.owners]
        return [frozenset(w for w in tpl[1:] if w and w not in link[tid]) for tid, tpl in enumerate(self.rec.tpls)]

    def _link_words(self, owners: Iterable[int]) -> frozenset[str]:
        """The words the messages of signatures spell in a link and nowhere else."""
        text = "\n".join(m for o in owners for m in messages(self.sigs[o]))
        inside = {w for url in _URL.findall(text) for w, _a, _b in words(url)}
        return frozenset(inside - {w for w, _a, _b in words(_URL.sub(" ", text))})

    def _named(self, line: str) -> dict[int, set[tuple[str, str]]]:
        """The signatures whose code names the line names: their index, with each name and its kind
        (kb/templates.py's ``spelt_names``)."""
        out: dict[int, set[tuple[str, str]]] = {}
        names = code_names(self.sigs, self.rec)  # (the base's, made for the first line that names one)
        for m in _IDENT.finditer(line):
            name = m.group("name").lower().lstrip("_")
            quoted = m.group("q") is not None and m.group("q") == m.group("c")
            for idx, kind in names.get(name, ()):
                if quoted or kind not in QUOTED_ONLY:
                    out.setdefault(idx, set()).add((name, kind))
        return out

