"""scripts/post/scaling_model.py without eddy: the plot and the efficiency table from a small CSV made here,
and the collection of `eddy plan --json` points through a stand-in for eddy that writes such JSON."""
import csv
import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO

SCRIPT = REPO / "scripts" / "post" / "scaling_model.py"


def model(*args, expect=0):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == expect, f"scaling_model.py {' '.join(map(str, args))} exited {r.returncode}:\n" \
                                   f"{r.stdout}\n{r.stderr}"
    return r


def assert_png(path, min_bytes=10_000):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > min_bytes, (path, len(data))


def synthetic_csv(path):
    """Two model curves on 1 to 1024 GPUs, a measured 2-GPU point and a reference point."""
    rows = []
    for p in [2 ** k for k in range(11)]:
        rows.append(dict(source="model", curve="lbm_weak", scaling="weak", gpus=p, efficiency=1.0 if p < 64 else 0.9,
                         limited_by="compute" if p < 64 else "network", fits="true"))
        rows.append(dict(source="model", curve="spectral_slab", scaling="strong", gpus=p, efficiency=1.0 / p ** 0.25,
                         limited_by="compute" if p == 1 else "latency", fits="true"))
    rows.append(dict(source="measured", curve="lbm_weak", scaling="weak", gpus=2, efficiency=0.99,
                     note="608^3 per GPU; results/x"))
    rows.append(dict(source="reference", curve="walberla_1024xa100", scaling="weak", gpus=1024, efficiency=0.82,
                     note="waLBerla: 82 %"))
    cols = ["source", "curve", "scaling", "gpus", "efficiency", "limited_by", "fits", "note"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path


def test_from_csv_draws_the_plot_and_prints_the_efficiency_table(tmp_path):
    src = synthetic_csv(tmp_path / "model.csv")
    r = model("--from-csv", src, "--markdown", tmp_path / "table.md")
    assert_png(tmp_path / "model.png")
    lines = r.stdout.splitlines()
    assert "| curve | 8 GPUs | 64 GPUs | 512 GPUs | 1024 GPUs |" in lines
    assert ("| LBM D3Q19 FP32, weak, 608^3 per GPU | 100.0 % (compute) | 90.0 % (network) | 90.0 % (network) "
            "| 90.0 % (network) |") in lines
    assert ("| spectral 1024^3 RK4 FP32, slabs | 59.5 % (latency) | 35.4 % (latency) | 21.0 % (latency) "
            "| 17.7 % (latency) |") in lines
    assert "| LBM D3Q19 FP32, weak, 608^3 per GPU | 100.0 % (compute) | 99.0 % (608^3 per GPU) | 1.010 |" in lines
    assert "| waLBerla: 82 % | 1024 | 82 % (weak) |" in lines
    assert (tmp_path / "table.md").read_text() == "\n".join(lines[:lines.index(f"wrote {tmp_path / 'table.md'}")]) + "\n"
    model("--from-csv", src, "--png", tmp_path / "other.png")
    assert_png(tmp_path / "other.png")


def test_from_csv_refuses_a_file_that_is_not_a_model_csv(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    assert "not a scaling model CSV" in model("--from-csv", tmp_path / "x.csv", expect=2).stderr
    assert "cannot read" in model("--from-csv", tmp_path / "none.csv", expect=2).stderr


STAND_IN = r'''#!/usr/bin/env python3
# A stand-in for `eddy plan --json`: records its command line and writes a plan of a made-up model.
import json, math, sys
a = sys.argv[1:]
assert a[0] == "plan", a
opts, sets, i = {}, [], 2
while i < len(a):
    if a[i] == "--set":
        sets.append(a[i + 1])
    else:
        opts[a[i]] = a[i + 1]
    i += 2
with open(sys.argv[0] + ".log", "a") as f:
    f.write(json.dumps({"config": a[1], "sets": sets, "opts": opts}) + "\n")
n, g = int(opts["--nodes"]), int(opts["--gpus-per-node"])
p = n * g
spectral = "spectral" in a[1]
if spectral and p > 256 and "parallel.ranks=[1,1,%d]" % p in sets:
    print("error: parallel.ranks: a slab decomposition needs P <= 256 here", file=sys.stderr)
    sys.exit(2)
weak = any(s.startswith("parallel.ranks=") for s in sets) and not spectral
compute = 1.0 if weak else 1.0 / p
net = 0.0 if n == 1 else 0.2 * compute
step = compute + net
m = {"compute_s": compute, "intra_node_s": 0.0, "inter_node_s": net, "latency_s": 0.0, "step_s": step,
     "limited_by": "compute" if net == 0 else "network", "inputs": {}}
j = {"config": a[1], "solver": "spectral" if spectral else "lbm", "grid": [8, 8, 8], "ranks": p, "nodes": n,
     "gpus_per_node": g, "decomposition": "slab" if spectral else "blocks", "process_grid": [1, 1, p],
     "block": [8, 8, 8], "device_bytes_per_rank": 1e9, "host_bytes_per_rank": 1e8,
     "device_capacity_bytes": 1.5e11, "fits": True, "exchange_bytes_per_step_per_rank": 1e6,
     "intra_node_bytes_per_step_per_rank": 1e6, "inter_node_bytes_per_step_per_rank": 0,
     "messages_per_step_per_rank": 6, "field_file_bytes": 1e9, "checkpoint_bytes": 1e9, "model": m,
     "single_gpu_step_s": 1.0, "speedup": 1.0 / step, "efficiency": 1.0 / (p * step)}
open(opts["--json"], "w").write(json.dumps(j))
'''


def test_points_of_eddy_plan_collected_into_the_csv(tmp_path):
    eddy = tmp_path / "eddy"
    eddy.write_text(STAND_IN)
    eddy.chmod(0o755)
    out = tmp_path / "m.csv"
    r = model("--eddy", eddy, "--csv", out, "--network-latency", "5", expect=0)
    assert f"wrote {out}" in r.stdout and f"wrote {out.with_suffix('.png')}" in r.stdout
    assert_png(out.with_suffix(".png"))
    calls = [json.loads(line) for line in Path(str(eddy) + ".log").read_text().splitlines()]
    assert len(calls) == 4 * 11
    weak = [c for c in calls if "lbm" in c["config"] and any(s.startswith("parallel.ranks") for s in c["sets"])]
    assert [c["opts"]["--nodes"] for c in weak] == ["1"] * 4 + ["2", "4", "8", "16", "32", "64", "128"]
    assert [c["opts"]["--gpus-per-node"] for c in weak] == ["1", "2", "4"] + ["8"] * 8
    by_p = {int(c["opts"]["--nodes"]) * int(c["opts"]["--gpus-per-node"]): c["sets"] for c in weak}
    assert by_p[8] == ["domain.cells=[1216,1216,1216]", "domain.length=[2.0,2.0,2.0]", "parallel.ranks=[2,2,2]"]
    assert by_p[1024][0] == "domain.cells=[4864,4864,9728]"
    assert all(c["opts"]["--network-latency"] == "5.0" and c["opts"]["--bench"].endswith(".json") for c in calls)
    rows = list(csv.DictReader(open(out)))
    slab = {int(x["gpus"]): x for x in rows if x["source"] == "model" and x["curve"] == "spectral_slab"}
    assert "needs P <= 256" in slab[512]["note"] and slab[512]["efficiency"] == ""
    assert abs(float(slab[64]["efficiency"]) - 1 / 1.2) < 1e-6 and slab[64]["limited_by"] == "network"
    assert abs(float(slab[8]["efficiency"]) - 1.0) < 1e-6
    weak_rows = {int(x["gpus"]): x for x in rows if x["source"] == "model" and x["curve"] == "lbm_weak"}
    assert abs(float(weak_rows[1024]["efficiency"]) - 1 / 1.2) < 1e-6
    assert abs(float(weak_rows[1024]["speedup"]) - 1024 / 1.2) < 1e-3
    assert {x["source"] for x in rows} == {"model", "measured", "reference"}
    assert "| spectral 1024^3 RK4 FP32, slabs | 100.0 % (compute) | 83.3 % (network) | - | - |" in r.stdout
