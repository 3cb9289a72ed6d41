"""A near miss says what on its line made the signature look: the signature's literals that line holds."""

from __future__ import annotations

from cudnn_doctor import diagnose


def test_a_near_miss_names_the_literal_its_line_holds_not_the_signatures_first_ones(catalog) -> None:  # type: ignore[no-untyped-def]
    text = "W cudnn_rnn.cc:88] cudnnRNNSetClip is deprecated in cuDNN 8 and will be removed, see cudnnRNNSetClip_v8\n"
    near = {n.id: n.reason for n in diagnose(text, catalog=catalog).near_misses}
    reason = near["cudnn/legacy-rnn-api-deprecated-warning"]
    assert "(cudnnRNNSetClip)" in reason and "cudnnRNNForward" not in reason
