"""The SGEMM ladder in Triton, one file per step beside the CUDA ladder (docs/ladder.md).
registry.py lists the steps; bench/triton_peer.py checks, times and inspects them."""
