"""``cudnn-doctor search WORDS``: find signatures by text."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Signature
from .load import Catalog


def search_signatures(catalog: Catalog, words: Sequence[str]) -> list[Signature]:
    """Signatures whose id, title, message, labels, tags, root cause or examples contain every word.

    Ranked by where the words occur: id/title/message hits count more than root-cause or example hits.
    """
    terms = [w.lower() for w in words if w.strip()]
    scored: list[tuple[int, str, Signature]] = []
    for sig in catalog.signatures:
        strong = " ".join([sig.id, sig.title, sig.signature, " ".join(sig.labels), " ".join(sig.raw.get("tags") or []), sig.raw.get("error_code") or ""]).lower()
        weak = " ".join([sig.root_cause, sig.framework, sig.scope, *(e.text for e in sig.examples)]).lower()
        if all(t in strong or t in weak for t in terms):
            score = sum(3 if t in strong else 1 for t in terms)
            scored.append((-score, sig.id, sig))
    return [s for _, _, s in sorted(scored, key=lambda x: (x[0], x[1]))]
