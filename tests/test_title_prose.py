"""An issue title (issue 27: '# ' and prose around the message) whose prose begins in lower case: on the text's
first line, over a blank line or nothing (a code comment stands over the code it comments), its heading marks
are a title's, not a code comment's, so the prose before the message is taken out
for a regex that wants the message at its line's start (tensorflow/fail-to-find-dnn-implementation refuses a
commented line: TensorFlow's sources and users' scripts carry the message in '# ...' comments)."""

from __future__ import annotations

from cudnn_doctor import diagnose


def _top(text: str) -> str | None:
    d = diagnose(text)
    return d.findings[0].id if d.findings else None


def test_a_title_s_prose_in_lower_case_is_taken_out_as_a_capitalised_one_is() -> None:
    for prose in ("Training crashes", "training crashes", "keras lstm on colab"):
        for body in ("\n\nIt worked yesterday.\n", "", "\n"):  # (a heading over a body, or the title alone)
            text = f"# {prose}: UnknownError: Fail to find the dnn implementation.{body}"
            assert _top(text) == "tensorflow/fail-to-find-dnn-implementation", (prose, body)


def test_a_code_comment_below_the_first_line_is_still_a_comment() -> None:
    text = "import tensorflow as tf\n# workaround: Fail to find the dnn implementation.\nbatch_size = 16\n"
    assert _top(text) is None


def test_a_comment_on_the_first_line_over_code_is_still_a_comment() -> None:
    """Pasted source whose first line is a comment that quotes the message, over the code it comments (the
    signature's code-comment counter-example): no finding, whatever the case of the comment's first word."""
    for comment in ("# if don't add this, it will report ERROR: ", "# workaround for: "):
        text = f"{comment}Fail to find the dnn implementation.\ngpus = tf.config.experimental.list_physical_devices('GPU')\n"
        assert _top(text) is None, comment
