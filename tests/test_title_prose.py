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


def test_a_comment_on_the_first_line_over_a_blank_line_and_code_is_still_a_comment() -> None:
    """A script's header comment over a blank line and then its code (imports, another comment, an assignment,
    a call) or a config file: no finding (review27). A title over a blank line and prose is a title."""
    head = "# workaround for: UnknownError: Fail to find the dnn implementation.\n\n"
    for code in ("import tensorflow as tf\n", "\nfrom keras import layers\n", "# set memory growth\nx = 1\n", "tf.config.set_soft_device_placement(True)\n", "gpus = tf.config.list_physical_devices('GPU')\n"):
        assert _top(head + code) is None, code
    for prose in ("It worked yesterday.\n", "Training (with TF 2.4) fails on Colab.\n", "```\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n```\n"):
        assert _top(head + prose) == "tensorflow/fail-to-find-dnn-implementation", prose
