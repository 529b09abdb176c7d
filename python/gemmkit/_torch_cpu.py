"""torch CPU tensors on the CPU path: gemmkit.gemm / matmul take torch tensors that live in host
memory (float32, bfloat16, float16; 2-D or batched 3-D, any strides) as numpy views of the same
memory (views), so nothing is copied that the numpy path would not copy; _dispatch.py then runs
the numpy path on them. A tensor c is updated in place and returned; without c the result comes
back as a torch tensor of the type the numpy path chooses (result). bfloat16 needs ml_dtypes
(numpy has no bfloat16). Tensors that require grad are refused: gemmkit does not record autograd
history.
"""
import numpy as np

_TYPES = {"float32", "bfloat16", "float16"}


def _torch_type_name(x):
    t = type(x)
    if t.__module__.split(".")[0] != "torch" or not hasattr(t, "data_ptr"):
        return None
    return str(x.dtype).rsplit(".", 1)[-1]


def is_tensor(x):
    return x is not None and _torch_type_name(x) is not None


def _bfloat16():
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("gemmkit: bfloat16 torch tensors on the CPU need ml_dtypes "
                        "(pip install ml_dtypes)") from None
    return ml_dtypes.bfloat16


def to_numpy(x, name):
    """A numpy view of CPU tensor x (same memory, same strides)."""
    if x.requires_grad:
        raise TypeError(f"gemmkit: {name} requires grad; gemmkit does not record autograd "
                        f"history (pass {name}.detach())")
    kind = _torch_type_name(x)
    if kind not in _TYPES:
        raise TypeError(f"gemmkit: {name} has dtype {x.dtype}; on the CPU gemmkit multiplies "
                        f"float32, bfloat16 and float16")
    if kind == "bfloat16":
        import torch
        return x.view(torch.int16).numpy().view(_bfloat16())
    return x.numpy()


def from_numpy(arr):
    import torch
    if arr.dtype.name == "bfloat16":
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


def views(a, b, c):
    """(a, b, c) with each torch tensor among them replaced by its numpy view, in that order."""
    return [to_numpy(x, n) if is_tensor(x) else x for x, n in ((a, "a"), (b, "b"), (c, "c"))]


def result(out, c):
    """What gemm returns for torch operands: the tensor c itself when given, else the numpy result
    as a tensor sharing its memory."""
    if c is not None:
        return c
    return from_numpy(out)
