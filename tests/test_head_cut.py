"""A message whose head was cut (issue 27): an excerpt starting mid-message, a wrapped terminal whose first line
was lost. The tolerant reading puts back the start the text lost (the signature's own message up to the
reading's first words) and reads it with the signature's regex: a finding marked cut where what is left names
something specific and holds most of its message; a generic piece of it stays unread (a near miss at most)."""

from __future__ import annotations

from cudnn_doctor import diagnose

TF_TAIL = (
    "ThenRnnBackward with model config: [rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, "
    "num_units, dir_count, max_seq_length, batch_size, cell_num_units]: [1, 64, 128, 1, 20, 16, 128]\n"
    "\t [[{{node training/Adam/gradients/lstm_1/CudnnRNN_grad/CudnnRNNBackprop}}]]\n"
)


def test_a_message_whose_first_words_were_cut_is_read_and_marked_cut(catalog) -> None:  # type: ignore[no-untyped-def]
    d = diagnose(TF_TAIL, catalog=catalog)
    assert [f.id for f in d.findings][:1] == ["tensorflow/then-rnn-backward-failed"]
    assert d.findings[0].cut is not None  # lower confidence: its start was not read


def test_a_head_cut_reads_only_where_nothing_else_stands_before_it_on_its_line(catalog) -> None:  # type: ignore[no-untyped-def]
    # another message's end (a batch norm's in-place error), not the RNN one's
    assert not diagnose("CudnnBatchNormBackward, is at version 2; expected version 1 instead.\n", catalog=catalog).findings


def test_a_generic_piece_of_a_message_is_no_finding(catalog) -> None:  # type: ignore[no-untyped-def]
    # an op's name as a converter lists it (the message's words before it are what tells it apart)
    assert not diagnose("UNIDIRECTIONAL_SEQUENCE_LSTM version 2\ndone\n", catalog=catalog).findings
    # any op's missing kernels: no RNN word
    d = diagnose("Registered kernels:\n  <no registered kernels>\n", catalog=catalog)
    assert not d.findings


def test_an_issue_title_of_a_message_typed_without_its_first_words_is_read(catalog) -> None:  # type: ignore[no-untyped-def]
    # PyTorch prints 'rnn: hx is not contiguous'; a user's title drops 'rnn:'
    d = diagnose("# hx is not contiguous in my GRU\n\nIt started after upgrading torch.\n", catalog=catalog)
    assert [f.id for f in d.findings][:1] == ["pytorch/rnn-hx-not-contiguous"]
    assert d.findings[0].cut is not None


def test_heading_marks_count_as_a_title_on_the_first_line_only(catalog) -> None:  # type: ignore[no-untyped-def]
    # a code comment inside a snippet and a README's section heading say the words, no error is reported
    snippet = "def init_hidden(self, bsz):\n    h = self.h0.expand(-1, bsz, -1)\n    # hx is not contiguous here; copy it\n    return h.contiguous()\n"
    readme = "Notes on the encoder\n\n## hx is not contiguous\n\nCall contiguous() on the initial state first.\n"
    for text in (snippet, readme, "import torch\n# hx is not contiguous after expand()\nh = h0.contiguous()\n"):
        assert not diagnose(text, catalog=catalog).findings, text
