#!/usr/bin/env python3
"""The 1024^3 pair of scripts/gpu_spectral_scaling.sh (1gpu.json, 2gpu.json) beside the committed figures of
an earlier build: ms/step, the transforms, the breakdown (pack, transfer, unpack, ...) and the bytes each
rank sends per step, before -> now. Used by scripts/gpu_spectral_transposes.sh.
  compare_scaling.py BEFORE_DIR AFTER_DIR [BYTES_NOTE]
BYTES_NOTE: what the ratio of bytes sent is expected to be, printed beside it."""
import json
import os
import sys

before_dir, after_dir = sys.argv[1], sys.argv[2]
note = sys.argv[3] if len(sys.argv) > 3 else ""
for name in ("1gpu.json", "2gpu.json"):
    paths = [os.path.join(before_dir, name), os.path.join(after_dir, name)]
    if not all(os.path.exists(p) for p in paths):
        print(f"{name}: missing ({', '.join(p for p in paths if not os.path.exists(p))})")
        continue
    b, a = (json.load(open(p)) for p in paths)
    if (a["grid"], a["precision"], a["time_stepper"]) != (b["grid"], b["precision"], b["time_stepper"]):
        print(f"{name}: {a['grid']} {a['precision']} {a['time_stepper']}, not the committed case: no comparison")
        continue
    print(f"{name} ({a['ranks']} rank(s), {a['grid']} {a['dealiasing']}, {a['steps']} steps x {a['repeats']}):")
    for key in ("ms_per_step_median", "fft_ms_per_step_median", "fft_pruned_ms_per_step_median"):
        if key in a and key in b:
            print(f"  {key}: before {b[key]:.2f}, now {a[key]:.2f} ({a[key] / b[key]:.3f}x)")
    bb, ab = b.get("breakdown", {}), a.get("breakdown", {})
    print("  breakdown ms/step, before -> now: " +
          ", ".join(f"{k} {bb.get(k, 0):.1f} -> {ab.get(k, 0):.1f}" for k in ab))
    if a["ranks"] > 1:
        r = a["transpose_bytes_per_step"] / b["transpose_bytes_per_step"]
        print(f"  sent per rank per step: before {b['transpose_bytes_per_step'] / 2**20:.0f} MiB, now "
              f"{a['transpose_bytes_per_step'] / 2**20:.0f} MiB ({r:.3f}x{'; ' + note if note else ''}); "
              f"{a['transpose_bandwidth_gbs']:.1f} GB/s (peer {a['peer_bandwidth_gbs']:.1f})")
