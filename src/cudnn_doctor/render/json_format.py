"""``--format json``: the report as documented in docs/output-format.md (records.Report, as is)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..read.textsafe import json_escape_invisible

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import Report


def render_json(record: Report) -> str:
    # C1 controls, zero-width and bidi characters are valid JSON as they are, but a terminal or viewer
    # showing the JSON would act on them: they are written as \u escapes instead
    return json_escape_invisible(json.dumps(record, indent=2, ensure_ascii=False)) + "\n"
