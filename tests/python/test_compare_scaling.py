"""scripts/eddy_post.py compare (field and CSV files against a tolerance) and scaling (bench results beside an
earlier build's), on files made here: the verdict, the exit code and the --json verdict."""
import json
import math

import h5py
import numpy as np

from conftest import post


def field_file(path, **datasets):
    with h5py.File(path, "w") as f:
        for k, v in datasets.items():
            f[k] = v
        f.attrs["step"] = 10
    return path


def pair(tmp_path, delta, **extra):
    v = np.linspace(0.5, 2.0, 48).reshape(4, 4, 3)
    a = field_file(tmp_path / "a.h5", velocity=v, density=np.ones((4, 4)), x=np.arange(4.0))
    b = field_file(tmp_path / "b.h5", velocity=v + delta, density=np.ones((4, 4)), x=np.arange(4.0), **extra)
    return a, b


# ------------------------------------------------------------------------------------------ compare
def test_compare_equal_files_pass_bitwise(tmp_path):
    a, _ = pair(tmp_path, 0.0)
    r = post("compare", a, a)
    assert r.stdout.splitlines() == ["density: max |a-b|/max|a| = 0.000e+00 (ok, tol 0)",
                                     "velocity: max |a-b|/max|a| = 0.000e+00 (ok, tol 0)",
                                     "x: max |a-b|/max|a| = 0.000e+00 (ok, tol 0)"]


def test_compare_fails_beyond_the_tolerance_and_passes_within(tmp_path):
    a, b = pair(tmp_path, 2e-9)  # max |a| = 2: relative 1e-9
    r = post("compare", a, b, "--tol", "1e-12", "--json", tmp_path / "v.json", expect=1)
    assert "velocity: max |a-b|/max|a| = 1.000e-09 (FAIL, tol 1e-12)" in r.stdout
    assert "density: max |a-b|/max|a| = 0.000e+00 (ok, tol 1e-12)" in r.stdout
    v = json.loads((tmp_path / "v.json").read_text())
    assert v["ok"] is False and v["tolerance"] == 1e-12 and math.isclose(v["value"], 1e-9, rel_tol=1e-6)
    assert v["datasets"]["density"] == 0.0
    post("compare", a, b, "--tol", "1e-8", "--json", tmp_path / "w.json")
    assert json.loads((tmp_path / "w.json").read_text())["ok"] is True
    post("compare", a, b, "--datasets", "density,x")  # the differing dataset left out: bitwise equal


def test_compare_missing_datasets_shapes_and_bad_input(tmp_path):
    a, b = pair(tmp_path, 0.0)
    c = field_file(tmp_path / "c.h5", velocity=np.ones((4, 4)), density=np.ones((4, 4)))
    assert "velocity: shapes differ (4, 4, 3) vs (4, 4)" in post("compare", a, c, expect=1).stdout
    assert "x: missing from" in post("compare", a, c, expect=1).stdout
    assert "pressure: missing from" in post("compare", a, b, "--datasets", "velocity,pressure", expect=1).stdout
    assert "no such file" in post("compare", a, tmp_path / "none.h5", expect=2).stderr
    (tmp_path / "junk.h5").write_text("not hdf5")
    assert "cannot open as HDF5" in post("compare", a, tmp_path / "junk.h5", expect=2).stderr
    assert "--rows applies to CSV" in post("compare", a, b, "--rows", "0:1", expect=2).stderr


def test_compare_nan_where_both_have_it_is_equal_and_elsewhere_fails(tmp_path):
    v = np.ones((3, 3))
    w = v.copy()
    v[1, 1] = w[1, 1] = np.nan
    a = field_file(tmp_path / "a.h5", velocity=v)
    post("compare", a, field_file(tmp_path / "b.h5", velocity=w))
    w[1, 1], w[0, 0] = 1.0, np.nan
    post("compare", a, field_file(tmp_path / "c.h5", velocity=w), "--tol", "1", expect=1)


def test_compare_csv_columns_and_rows(tmp_path):
    head = "step,time,minus_dEdt,loss,note\n"
    (tmp_path / "a.csv").write_text(head + "0,0,nan,1.0,x\n1,0.1,0.5,2.0,y\n2,0.2,0.25,4.0,z\n")
    (tmp_path / "b.csv").write_text(head + "0,0,nan,1.0,x\n1,0.1,0.5,2.0,y\n2,0.2,0.25,4.4,z\n")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    r = post("compare", a, b, "--tol", "0.05", expect=1)  # loss: 0.4 / 4.4
    assert "loss: max |a-b|/max|a| = 1.000e-01 (FAIL, tol 0.05)" in r.stdout
    assert "minus_dEdt: max |a-b|/max|a| = 0.000e+00 (ok" in r.stdout and "note" not in r.stdout
    post("compare", a, b, "--datasets", "loss", "--rows", "0:2")  # the first two rows agree
    post("compare", a, b, "--datasets", "loss", "--rows", "2:", "--tol", "0.11")
    assert "missing from" in post("compare", a, b, "--datasets", "note", expect=1).stdout  # text, not numbers
    assert "expected START:STOP" in post("compare", a, b, "--rows", "2", expect=2).stderr


# ------------------------------------------------------------------------------------------ scaling
def spectral(ms, ranks=1, grid="1024x1024x1024", sent=None, **extra):
    d = {"name": "bench_spectral_3d_1024", "grid": grid, "precision": "fp32", "time_stepper": "rk4",
         "dealiasing": "two_thirds", "ranks": ranks, "steps": 10, "repeats": 3, "ms_per_step_median": ms,
         "fft_ms_per_step_median": 0.8 * ms, "breakdown": {"fft": 0.8 * ms, "transfer": 0.2 * ms}}
    if sent:
        d.update(transpose_bytes_per_step=sent, transpose_bandwidth_gbs=300.0, peer_bandwidth_gbs=380.0)
    d.update(extra)
    return d


def lbm(mlups, ranks=1, **extra):
    return {"name": "bench_d3q19_608", "cells": 224755712, "lattice": "D3Q19", "collision": "bgk",
            "precision": "fp32", "ranks": ranks, "steps": 10, "repeats": 3, "mlups_median": mlups, **extra}


def results(folder, **files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / f"{name}.json").write_text(json.dumps(data))
    return folder


def test_scaling_within_the_tolerance(tmp_path):
    before = results(tmp_path / "before", **{"1gpu": spectral(300.0), "2gpu": spectral(200.0, 2, sent=2**34),
                                             "lbm": lbm(24000.0)})
    after = results(tmp_path / "after", **{"1gpu": spectral(306.0), "2gpu": spectral(180.0, 2, sent=2**34),
                                           "lbm": lbm(23500.0)})
    r = post("scaling", before, after, "expected 1.000", "--tol", "0.05", "--json", tmp_path / "v.json")
    assert "ms_per_step_median: before 300.00, now 306.00 (1.020x)" in r.stdout
    assert "ms_per_step_median: before 200.00, now 180.00 (0.900x)" in r.stdout
    assert "mlups_median: before 24000.00, now 23500.00 (0.979x)" in r.stdout
    assert "breakdown ms/step, before -> now: fft 240.0 -> 244.8, transfer 60.0 -> 61.2" in r.stdout
    assert "transposes, sent per rank per step: before 16384 MiB, now 16384 MiB (1.000x; expected 1.000)" in r.stdout
    v = json.loads((tmp_path / "v.json").read_text())
    assert v["ok"] is True and v["tolerance"] == 0.05 and math.isclose(v["value"], 24000 / 23500)
    assert v["files"]["2gpu.json"]["status"] == "ok"


def test_scaling_fails_on_a_slowdown_or_a_missing_result(tmp_path):
    before = results(tmp_path / "before", **{"1gpu": spectral(300.0), "lbm": lbm(24000.0)})
    slow = results(tmp_path / "slow", **{"1gpu": spectral(360.0), "lbm": lbm(24000.0)})
    r = post("scaling", before, slow, "--tol", "0.1", expect=1)
    assert "slowdown 1.200x (FAIL, tol 0.1)" in r.stdout and "slowdown 1.000x (ok, tol 0.1)" in r.stdout
    post("scaling", before, slow)  # no tolerance: reported only
    lbm_slow = results(tmp_path / "lbm_slow", **{"1gpu": spectral(300.0), "lbm": lbm(12000.0)})
    assert "slowdown 2.000x (FAIL" in post("scaling", before, lbm_slow, "--tol", "0.5", expect=1).stdout
    partial = results(tmp_path / "partial", **{"1gpu": spectral(300.0)})
    assert "lbm.json: missing from" in post("scaling", before, partial, expect=1).stdout
    post("scaling", before, partial, "--files", "1gpu.json")


def test_scaling_other_cases_and_bad_input(tmp_path):
    before = results(tmp_path / "before", **{"1gpu": spectral(300.0), "2gpu": spectral(200.0, 2)})
    other = results(tmp_path / "other", **{"1gpu": spectral(30.0, grid="512x512x512"), "2gpu": spectral(210.0, 2)})
    r = post("scaling", before, other, "--tol", "0.1")
    assert "1gpu.json: 512x512x512 fp32 rk4 on 1 rank(s), not the case of" in r.stdout
    assert "2gpu.json (2 rank(s)" in r.stdout
    # An LBM result without numerics.storage stored populations: the same case as one that says so, not as
    # one of moment storage.
    old = results(tmp_path / "old", lbm=lbm(24000.0))
    same = results(tmp_path / "same", lbm=lbm(23000.0, storage="populations"))
    assert "lbm.json (1 rank(s), 224755712 D3Q19 bgk fp32, " in post("scaling", old, same).stdout
    moments = results(tmp_path / "moments", lbm=lbm(30000.0, collision="regularized", storage="moments"))
    assert "lbm.json: 224755712 D3Q19 regularized fp32 moments on 1 rank(s), not the case of" in post(
        "scaling", old, moments, expect=2).stdout
    only_other = results(tmp_path / "only_other", **{"1gpu": spectral(30.0, grid="512x512x512")})
    assert "nothing to compare" in post("scaling", tmp_path / "only_other", before, "--files", "1gpu.json",
                                        expect=2).stderr
    assert only_other.is_dir()
    assert "no such folder" in post("scaling", before, tmp_path / "none", expect=2).stderr
    (tmp_path / "empty").mkdir()
    assert "no *.json" in post("scaling", tmp_path / "empty", before, expect=2).stderr
    assert "no nope.json" in post("scaling", before, other, "--files", "nope.json", expect=2).stderr
    (other / "2gpu.json").write_text("{broken")
    assert "not a readable JSON" in post("scaling", before, other, expect=2).stderr
