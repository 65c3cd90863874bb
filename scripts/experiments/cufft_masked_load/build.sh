#!/usr/bin/env bash
# Experiment: can cuFFT LTO load callbacks that read zero outside the 2/3-rule box replace the zeros the
# spectral stage kernel writes before every backward transform? Build and run on a GPU machine:
#   scripts/experiments/cufft_masked_load/build.sh && scripts/experiments/cufft_masked_load/exp
# Result on an H200 (2026-11-30, CUDA 13.0, cuFFT 12.0): correct (bitwise the zero-filled result), but a
# pass-through callback alone makes the pruned backward transform 1.43x slower at 512^3 (0.987 -> 1.409 ms
# per field) and the mask 2.25x (2.222 ms), against 0.235 ms for a pass that zeroes the box's complement:
# callbacks do not pay here (cases/benchmarks/results/2026-11-30f-h200/README.md).
# Notes: the callback is an ordinary C++ __device__ function named as written (cufftXtSetJITCallback
# accepts an extern "C" one, but planning then fails with CUFFT_INTERNAL_ERROR), compiled -dc to LTO-IR;
# the executable must load nvJitLink (linked with --no-as-needed).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -gencode arch=compute_90,code=lto_90 -dc -fatbin mask_cb.cu -o mask_cb.fatbin
bin2c -c --type longlong --name mask_cb_fatbin mask_cb.fatbin > mask_cb.h
nvcc -O3 -arch=sm_90 exp.cu -Xlinker --no-as-needed -lcufft -lnvJitLink -o exp
