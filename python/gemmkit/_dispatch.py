"""Where a call goes: the one place that looks at the arrays of gemmkit.gemm / matmul /
gemm_scaled and picks the module that runs them, once per call.

    gemm          any CUDA array                        -> _cuda (gk_cuda_sgemm, gk_cuda_gemm_ex,
                                                           gk_cuda_sgemm_strided_batched)
                  torch CPU tensors                     -> numpy views of them (_torch_cpu), then
                                                           as numpy arrays below; the result as a
                                                           tensor
                  numpy bfloat16 / float16 (a, b or c)  -> _lowp (gk_gemm_ex)
                  numpy float32, a or b 3-D             -> _batched (gk_sgemm_strided_batched)
                  numpy float32, 2-D                    -> _host.sgemm (gk_sgemm)
    gemm_scaled   any CUDA array                        -> _scaled.device_gemm (gk_cuda_gemm_scaled)
                  otherwise                             -> _scaled.host_gemm (gk_gemm_scaled)

The modules it picks do not call back here or into each other's routes; what they share is
below them (_host.run, _layout, _lib).
"""
from . import _batched, _cuda, _host, _lowp, _scaled, _torch_cpu


def _host_route(a, b, c):
    """(function, a, b): the host module's entry for numpy operands, and a and b as it takes them
    (float32 arrays for the float32 paths; lists converted, other dtypes refused)."""
    if _lowp.wants(a, b, c):  # bfloat16 / float16 host arrays: gk_gemm_ex
        return _lowp.host_gemm, a, b
    a, b = _host.host_array(a, "a"), _host.host_array(b, "b")
    if _batched.is_batched(a.shape, b.shape):  # stacks of matrices (batch first)
        return _batched.host_gemm, a, b
    return _host.sgemm, a, b


def gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a, scale_b, fp32_mode, fp8_fast_accum):
    """gemmkit.gemm, run where its arrays live (the table above)."""
    if _cuda.is_device_array(a) or _cuda.is_device_array(b) or _cuda.is_device_array(c):
        return _cuda.gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a, scale_b, fp32_mode,
                          fp8_fast_accum)
    if scale_a is not None or scale_b is not None or fp32_mode is not None or fp8_fast_accum:
        raise ValueError("gemmkit: scale_a, scale_b, fp32_mode and fp8_fast_accum apply to CUDA "
                         "arrays; the CPU multiplies float32")
    tensors = _torch_cpu.is_tensor(a) or _torch_cpu.is_tensor(b) or _torch_cpu.is_tensor(c)
    ha, hb, hc = _torch_cpu.views(a, b, c) if tensors else (a, b, c)
    run, ha, hb = _host_route(ha, hb, hc)
    out = run(ha, hb, hc, trans_a, trans_b, alpha, beta)
    return _torch_cpu.result(out, c) if tensors else out


def gemm_scaled(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a, trans_b, alpha,
                beta, out_dtype):
    """gemmkit.gemm_scaled, run where its arrays live (the table above)."""
    _scaled.check_scaling(scaling)
    out_name = _scaled.out_name(out_dtype)
    run = _scaled.device_gemm if _scaled.is_device_call(a, a_scale, b, b_scale, c) else \
        _scaled.host_gemm
    return run(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a, trans_b, alpha,
               beta, out_name)
