"""A message TensorFlow and JAX both print (XLA's stream_executor: cuda_dnn.cc is one source file in both) is read
as TensorFlow's only where the log does not say JAX: a JAX log (jaxlib, a jax/ or flax/ frame, XlaRuntimeError)
gets the JAX signature or the framework-neutral one, never a tensorflow/ id with TensorFlow's fixes."""

from __future__ import annotations

import pytest

from cudnn_doctor import diagnose

_FLAX_FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 31, in <module>\n'
    "    y = model.apply(params, x)\n"
    '  File "/usr/local/lib/python3.10/site-packages/flax/linen/module.py", line 1511, in apply\n'
    "    return apply(fn, self)(variables, *args, **kwargs)\n"
)
_XLA_ERROR = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error.\n"
_MESSAGES = {
    "tensorflow/could-not-create-cudnn-handle":
        "E0305 10:11:12.123456  4242 cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n",
    "tensorflow/cudnn-set-stream-failed":
        "F0305 10:11:12.123456  4242 cuda_dnn.cc:220] Check failed: status == CUDNN_STATUS_SUCCESS (7 vs. 0)Failed to set cuDNN stream.\n",
    "tensorflow/cuda-error-before-cudnn-handle":
        "E0305 10:11:12.123456  4242 cuda_dnn.cc:545] There was an error before creating cudnn handle (209): "
        "cudaErrorNoKernelImageForDevice : no kernel image is available for execution on the device\n",
    "tensorflow/cudnn-version-mismatch":
        "E0305 10:11:12.123456  4242 cuda_dnn.cc:522] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: "
        "8.9.4.  CuDNN library needs to have matching major version and equal or higher minor version.\n",
}


@pytest.mark.parametrize("sig_id", sorted(_MESSAGES))
@pytest.mark.parametrize("after", [_FLAX_FRAMES, "Epoch 1\n" + _XLA_ERROR, "\n" * 12 + _FLAX_FRAMES + _XLA_ERROR])
def test_a_shared_stream_executor_message_in_a_jax_log_gets_no_tensorflow_id(sig_id: str, after: str) -> None:
    d = diagnose(_MESSAGES[sig_id] + after)
    assert not [f.id for f in d.findings if f.id.startswith("tensorflow/")], [f.id for f in d.findings]
    assert diagnose(_MESSAGES[sig_id]).findings[0].id == sig_id  # alone (or in a TensorFlow log): TensorFlow's
