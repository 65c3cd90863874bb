"""scripts/eddy_post.py on output that eddy writes here: every subcommand's PNG and CSV, and their numbers."""
import csv
import json
import re
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import REPO, post, run_eddy

sys.path.insert(0, str(REPO / "scripts"))

from post.common import field_files, parse_config  # noqa: E402
from post.spectrum import energy_spectrum  # noqa: E402
from post.tgv import reference_curve, run_dissipation  # noqa: E402

GHIA = REPO / "cases" / "lid_driven_cavity" / "ghia1982_re100_400_1000.csv"


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def assert_png(path, min_bytes=10_000):
    """A PNG file of some substance (a blank figure is about 5 kB)."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > min_bytes, (path, len(data))


# ------------------------------------------------------------------------------------------ cavity
def test_cavity_profiles_match_ghia_at_re100(cavity_run):
    r = post("cavity", cavity_run)
    assert "max |u - u_Ghia|" in r.stdout  # printed only when the Ghia points were found and compared
    out = cavity_run / "post"
    assert_png(out / "cavity.png", 30_000)
    prof = rows(out / "cavity.csv")
    assert {p["line"] for p in prof} == {"u_vs_y", "v_vs_x"}
    assert len(prof) == 2 * (32 + 2)  # cell centres plus both walls
    # The profiles themselves, interpolated at Ghia's points independently of the tool's comparison.
    ghia = [g for g in rows(GHIA) if float(g["re"]) == 100]
    assert len(ghia) == 34
    for line in ("u_vs_y", "v_vs_x"):
        s = np.array([float(p["coord"]) for p in prof if p["line"] == line])
        v = np.array([float(p["value"]) for p in prof if p["line"] == line])
        assert np.all(np.diff(s) > 0) and s[0] == 0.0 and s[-1] == 1.0
        g = [(float(x["coord"]), float(x["value"])) for x in ghia if x["line"] == line]
        dev = max(abs(np.interp(c, s, v) - val) for c, val in g)
        assert dev < 0.05, (line, dev)
    assert float([p for p in prof if p["line"] == "u_vs_y"][-1]["value"]) == 1.0  # the lid
    cmp = rows(out / "cavity_ghia.csv")
    assert len(cmp) == 34 and all(c["counted"] == "1" for c in cmp)
    assert max(abs(float(c["diff"])) for c in cmp) < 0.05


def test_cavity_matches_eddys_own_validation(cavity_run):
    """The tool's maximum deviations equal what eddy printed in run.log (same centreline definition)."""
    r = post("cavity", cavity_run, "-o", cavity_run / "post" / "again")
    log = (cavity_run / "run.log").read_text()
    eddy_line = next(line for line in log.splitlines() if "max |u - u_Ghia|" in line)
    ours = next(line for line in r.stdout.splitlines() if "max |u - u_Ghia|" in line)
    assert ours.strip() == eddy_line.strip()


def test_cavity_without_ghia_data_for_this_re(cavity_run, tmp_path):
    r = post("cavity", cavity_run, "--re", "250", "-o", tmp_path / "c")
    assert "no Ghia data for Re = 250" in r.stderr
    assert_png(tmp_path / "c.png")
    assert (tmp_path / "c.csv").is_file() and not (tmp_path / "c_ghia.csv").exists()


def test_cavity_on_a_directory_without_fields(tmp_path):
    r = post("cavity", tmp_path, expect=2)
    assert "no field files" in r.stderr


# ------------------------------------------------------------------------------------------ spectrum
def test_spectrum_of_2d_taylor_green_peaks_at_its_wavenumber(tgv2d_run):
    first = field_files(tgv2d_run)[0]
    post("spectrum", first)
    out = tgv2d_run / "post" / f"{first.stem}_spectrum"
    assert_png(out.with_suffix(".png"))
    spec = rows(out.with_suffix(".csv"))
    e = np.array([float(s["E"]) for s in spec])
    k = np.array([float(s["k"]) for s in spec])
    # u = U sin(x) cos(y), v = -U cos(x) sin(y) on the 2 pi box: all energy in |k| = sqrt(2) -> shell 1
    assert k[1] == pytest.approx(1.0)
    assert np.argmax(e) == 1
    assert e[1] * (k[1] - k[0]) == pytest.approx(0.25, rel=1e-3)  # <|u|^2>/2 = U^2/4
    assert e[1] > 1e6 * max(e[0], e[2:].max())


def test_spectrum_of_a_single_mode_3_4(tmp_path):
    """A field with one mode k = (3, 4), |k| = 5, written by hand: E peaks in shell 5 and sums to <|u|^2>/2."""
    n, length = 32, 2 * np.pi
    x = (np.arange(n) + 0.5) * length / n
    xx, yy = np.meshgrid(x, x)  # (ny, nx)
    phase = 3 * xx + 4 * yy
    vel = np.stack([4 * np.sin(phase), -3 * np.sin(phase)], axis=-1) * 0.1  # divergence-free
    path = tmp_path / "mode_00000000.h5"
    with h5py.File(path, "w") as f:
        f["velocity"] = vel
        f["x"] = x
        f["y"] = x
        f.attrs.update(dimensions=2, step=0, time=0.0, domain_length=[length, length])
    r = post("spectrum", path)
    assert "peak at k = 5 (shell 5)" in r.stdout
    k, e, modes, complete = energy_spectrum(vel, np.array([length, length]))
    assert np.argmax(e) == 5
    assert e.sum() * (k[1] - k[0]) == pytest.approx(0.5 * np.mean(np.sum(vel**2, axis=-1)), rel=1e-12)
    assert modes.sum() == n * n and complete[5] == 1 and complete[-1] == 0


def test_spectrum_3d(tgv3d_run):
    first = field_files(tgv3d_run)[0]
    r = post("spectrum", first)
    assert "3D" in r.stdout and "(shell 2)" in r.stdout  # |k| = sqrt(3) for the 3D Taylor-Green field
    assert_png(tgv3d_run / "post" / f"{first.stem}_spectrum.png")


# ------------------------------------------------------------------------------------------ tgv
def test_tgv_from_an_eddy_run(tgv3d_run):
    # The LBM writes `dissipation` (2 nu x the strain-rate enstrophy), used by default; --from-energy takes
    # -dE/dt of kinetic_energy instead (the LBM's total dissipation).
    assert "dissipation column" in post("tgv", tgv3d_run).stdout
    r = post("tgv", tgv3d_run, "--from-energy")
    assert "-dE/dt of kinetic_energy" in r.stdout and "max |eps - eps_ref|" in r.stdout
    out = tgv3d_run / "post" / "tgv_dissipation"
    assert_png(out.with_suffix(".png"))
    table = rows(out.with_suffix(".csv"))
    t = [float(x["time"]) for x in table]
    assert t[0] == 0.0 and 1.0 <= t[-1] < 1.05 and len(t) >= 100  # reference every 0.01 s; the run ends at >= 1 s
    t_ref, eps_ref = reference_curve(REPO / "cases" / "taylor_green" / "tgv_re1600_dissipation.csv")
    assert float(table[10]["reference"]) == pytest.approx(np.interp(t[10], t_ref, eps_ref))
    assert all(np.isfinite(float(x["eddy"])) for x in table)


def test_tgv_from_a_spectral_run(tgv3d_spectral_run):
    """The spectral solver writes `dissipation` (2 nu x enstrophy); up to t = 1 even 16^3 follows the DNS."""
    r = post("tgv", tgv3d_spectral_run)
    assert "dissipation column" in r.stdout
    table = rows(tgv3d_spectral_run / "post" / "tgv_dissipation.csv")
    assert len(table) == 101
    assert max(abs(float(x["diff"])) for x in table) < 1e-6  # the reference is 4.7e-4 .. 5.2e-4 here
    s = post("summary", tgv3d_spectral_run)
    row = rows(tgv3d_spectral_run / "post" / "summary.csv")[0]
    assert row["stop_reason"] == "end time reached" and float(row["final_time"]) == pytest.approx(1.0)
    assert float(row["mlups"]) > 0 and float(row["tgv_max_deps_pct"]) < 0.1, s.stdout


def reference_diagnostics(path, every, dissipation):
    """A diagnostics.csv made from the reference itself: kinetic_energy (and dissipation) every `every` rows."""
    with open(REPO / "cases" / "taylor_green" / "tgv_re1600_dissipation.csv") as f:
        data = list(csv.DictReader(line for line in f if not line.startswith("#")))
    with open(path, "w") as f:
        f.write("step,time,kinetic_energy" + (",dissipation" if dissipation else "") + "\n")
        for k, d in enumerate(data[::every]):
            extra = f",{d['dissipation_rate_minus_dEdt']}" if dissipation else ""
            f.write(f"{k},{d['t']},{d['kinetic_energy']}{extra}\n")


def test_tgv_minus_dedt_reproduces_the_reference(tmp_path):
    """-dE/dt by central differences of the reference's own energy (every 0.1 s) gives its dissipation back."""
    reference_diagnostics(tmp_path / "diagnostics.csv", 10, dissipation=False)
    r = post("tgv", tmp_path)
    assert "-dE/dt" in r.stdout
    table = rows(tmp_path / "post" / "tgv_dissipation.csv")
    dev = max(abs(float(x["diff"])) for x in table)
    assert dev < 0.02 * 0.0128575, dev  # under 2% of the peak; the ends are one-sided
    t, eps, how = run_dissipation(tmp_path / "diagnostics.csv")
    assert how.startswith("-dE/dt") and len(t) == 200


def test_tgv_uses_the_dissipation_column(tmp_path):
    reference_diagnostics(tmp_path / "diagnostics.csv", 1, dissipation=True)
    r = post("tgv", tmp_path, "--reference", REPO / "cases" / "taylor_green" / "tgv_re1600_dissipation.csv")
    assert "dissipation column" in r.stdout
    assert max(abs(float(x["diff"])) for x in rows(tmp_path / "post" / "tgv_dissipation.csv")) < 1e-15
    r = post("tgv", tmp_path, "--from-energy", "-o", tmp_path / "e")
    assert "-dE/dt" in r.stdout


def test_tgv_repeated_steps_keep_the_last_row(tmp_path):
    (tmp_path / "diagnostics.csv").write_text(
        "step,time,kinetic_energy\n0,0,1.0\n10,0.1,0.9\n20,0.2,0.8\n10,0.1,0.95\n20,0.2,0.85\n30,0.3,0.75\n")
    t, eps, _ = run_dissipation(tmp_path / "diagnostics.csv")
    assert list(t) == [0.0, 0.1, 0.2, 0.3]
    assert eps[1] == pytest.approx(-(0.85 - 1.0) / 0.2)


# ------------------------------------------------------------------------------------------ forces
def test_forces_from_an_eddy_cylinder_run(eddy, tmp_path):
    """A short 2D-1 cylinder run: coefficients.csv plotted, bodies.txt's statistics quoted, not recomputed."""
    out = run_eddy(eddy, tmp_path / "cyl", "cylinder/cylinder2d_re20.yaml", "domain.cells=[220,41]", "run.end_time=0",
                   "run.steps=300", "run.steady.tolerance=0", "output.fields.every=0", "output.fields.at_end=false")
    r = post("forces", out, "--cd", "5.5795", "--cl", "0.010619")
    samples = rows(out / "coefficients.csv")
    assert f"coefficients.csv, {len(samples)} samples" in r.stdout and len(samples) > 10
    assert "bodies.txt, second half: mean drag coefficient" in r.stdout
    assert_png(out / "post" / "forces.png")


def test_forces_repeated_steps_keep_the_last_row_and_missing_samples_are_an_error(tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    from post.forces import coefficient_samples
    (tmp_path / "coefficients.csv").write_text(
        "step,time,drag_coefficient,lift_coefficient\n0,0,0,0\n8,0.1,1,0.1\n16,0.2,2,0.2\n8,0.1,1.5,0.15\n"
        "16,0.2,2.5,0.25\n24,0.3,3,0.3\n")
    t, cd, cl, source = coefficient_samples(tmp_path)
    assert source == "coefficients.csv" and list(t) == [0.0, 0.1, 0.2, 0.3] and list(cd) == [0, 1.5, 2.5, 3]
    assert "no coefficients.csv" in post("forces", tmp_path / "nothing", expect=2).stderr


def test_forces_on_a_torn_last_line(tmp_path):
    """A running or killed eddy leaves coefficients.csv's last row without its newline: left out, exit 0."""
    (tmp_path / "coefficients.csv").write_text(
        "step,time,drag_coefficient,lift_coefficient\n0,0,0,0\n8,0.1,1,0.1\n16,0.2,2,0.2\n24,0.3,3")
    r = post("forces", tmp_path)
    assert "coefficients.csv, 3 samples" in r.stdout
    assert "coefficients.csv:5: the last line is incomplete" in r.stderr
    (tmp_path / "coefficients.csv").write_text(
        "step,time,drag_coefficient,lift_coefficient\n0,0,0,0\n8,0.1\n16,0.2,2,0.2\n")
    assert "coefficients.csv:3: 2 fields, but the header has 4" in post("forces", tmp_path, expect=2).stderr


# ------------------------------------------------------------------------------------------ probes
def test_probes_from_an_eddy_run(eddy, tmp_path):
    """A cavity run with two probes: one PNG per field and point, the series as probes.h5 holds them."""
    out = run_eddy(eddy, tmp_path / "cav", "lid_driven_cavity/cavity2d.yaml", "domain.cells=[32,32]",
                   "physics.reynolds=100", "run.end_time=0", "run.steps=400", "validation.reference=none",
                   "output.probes.every=4",
                   "output.probes.points=[[0.5, 0.9], [0.25, 0.25]]", "output.probes.fields=[velocity, pressure]")
    r = post("probes", out)
    for name in ("velocity", "pressure"):
        for p in (0, 1):
            assert_png(out / "post" / f"probes_{name}_p{p}.png")
            assert f"wrote {out / 'post' / f'probes_{name}_p{p}.png'}" in r.stdout
    assert "probes: velocity at (0.5, 0.9): 101 samples, t = 0..1.25 s" in r.stdout
    r = post("probes", out / "probes.h5", "--fields", "pressure", "-o", tmp_path / "only")
    assert_png(tmp_path / "only_pressure_p1.png") and not (tmp_path / "only_velocity_p0.png").exists()
    assert "no field vort" in post("probes", out, "--fields", "vort", expect=2).stderr
    assert "no such file" in post("probes", tmp_path / "nothing", expect=2).stderr


# ------------------------------------------------------------------------------------------ stats
def test_stats_profiles_against_the_laminar_kolmogorov_flow(eddy, tmp_path):
    """The laminar Kolmogorov flow from rest (cases/kolmogorov_2d), sampled every 10 steps from t = 0.2 s
    and averaged over x: the mean u_x(y) equals the exact solution averaged over the sample times to 5e-11
    of its peak (IF-RK4's error on this linear forced problem: (lambda dt)^4 / 2880 = 1.4e-12 at the fixed
    point, and the decaying transient's, below 1e-11 here; the FP64 sums of 31 samples add ~1e-15); v,
    the vorticity's mean and the fluctuations follow; a PNG and a CSV per profile."""
    out = run_eddy(eddy, tmp_path / "k", "kolmogorov_2d/kolmogorov2d_spectral.yaml", "run.end_time=0.5",
                   "output.fields.every=0", "validation.reference=none", "output.statistics.every=10",
                   "output.statistics.start=0.2t", "output.statistics.fields=[velocity, reynolds_stress, vorticity]",
                   "output.statistics.average_over=[x]")
    r = post("stats", out)
    assert "31 samples, t = 0.2..0.5 s" in r.stdout, r.stdout
    err = float(r.stdout.split("max |difference| ")[1].split()[0])
    rel = float(r.stdout.split("m/s (")[1].split()[0])
    assert rel < 5e-11 and err > 0, r.stdout
    for name in ("mean_velocity", "reynolds_stress", "mean_vorticity"):
        assert_png(out / "post" / f"stats_{name}.png", min_bytes=5_000)
    cols = rows(out / "post" / "stats_reynolds_stress.csv")
    y = np.array([float(c["y"]) for c in cols])
    # <u'u'> of u = U(t) sin(k y): the variance of U over the samples times sin^2(k y); v' = 0
    assert np.abs(np.array([float(c["fluct_xy"]) for c in cols])).max() < 1e-14
    fl = np.array([float(c["fluct_xx"]) for c in cols])
    assert fl.max() > 0 and np.corrcoef(fl, np.sin(4 * y) ** 2)[0, 1] > 0.999
    assert "no stats file at step 7" in post("stats", out, "--step", "7", expect=2).stderr
    assert "no stats files" in post("stats", tmp_path / "nothing", expect=2).stderr


# ------------------------------------------------------------------------------------------ slices
def test_slices_frames_and_movie(eddy, tmp_path):
    """A 3D run with two slices: a PNG frame per slice, field and step, showing the plane's values (a
    vector's magnitude); --movie without ffmpeg says so, with an ffmpeg on PATH it is handed every frame."""
    out = run_eddy(eddy, tmp_path / "t3", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[16,16,16]",
                   "run.end_time=0", "run.steps=20", "validation.reference=none", "output.fields.at_end=false",
                   "output.slices=[{axis: z, position: 3.2, every: 10, fields: [velocity, density]}, "
                   "{axis: x, position: 0.0, every: 20}]")
    r = post("slices", out, "--movie", "--out", tmp_path / "frames", "--fps", "4")
    pngs = sorted(p.name for p in (tmp_path / "frames").glob("*.png"))
    assert pngs == [f"tgv3d_lbm_x0_velocity_{s:08d}.png" for s in (0, 20)] + \
        [f"tgv3d_lbm_z8_{n}_{s:08d}.png" for n in ("density", "velocity") for s in (0, 10, 20)], pngs
    for p in pngs:
        assert_png(tmp_path / "frames" / p, 8_000)
        assert f"wrote {tmp_path / 'frames' / p}" in r.stdout
    with h5py.File(out / "slices" / "tgv3d_lbm_z8_00000020.h5") as f:
        speed = np.sqrt((f["velocity"][()] ** 2).sum(axis=-1))
    assert f"slices: tgv3d_lbm_z8 velocity: 3 frames, range [" in r.stdout
    assert "ffmpeg is not on PATH" in r.stdout and not list((tmp_path / "frames").glob("*.mp4"))
    # The movie: an ffmpeg of the test's own records its arguments and frame list and writes the file.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ffmpeg"
    fake.write_text("#!/bin/sh\nfor a; do last=$a; done\nprev=''\nfor a; do [ \"$prev\" = -i ] && cp \"$a\" "
                    "\"$last.list\"; prev=$a; done\necho movie > \"$last\"\n")
    fake.chmod(0o755)
    import os
    import subprocess
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "eddy_post.py"), "slices", str(out / "slices"),
                        "--movie"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    mp4 = out / "slices" / "frames" / "tgv3d_lbm_z8_velocity.mp4"
    assert f"wrote {mp4}" in r.stdout and mp4.read_text() == "movie\n"
    frames = Path(str(mp4) + ".list").read_text().split("\n")
    assert [Path(x[6:-1]).name for x in frames if x.startswith("file")] == \
        [f"tgv3d_lbm_z8_velocity_{s:08d}.png" for s in (0, 10, 20)]
    assert speed.max() > 0.5  # the frames show a flow, not a rest state
    assert "no slice files" in post("slices", tmp_path / "frames", expect=2).stderr
    assert "no such directory" in post("slices", tmp_path / "nothing", expect=2).stderr


def test_probes_spectrum_finds_the_frequency_of_a_sine(tmp_path):
    """A series of 3 + 0.5 sin(2 pi 4 t) + 0.2 sin(2 pi 11 t), unevenly sampled as a time schedule does:
    the peaks at 4 and 11 Hz with their amplitudes."""
    t = np.arange(0, 2000) * 1e-3
    t[1::3] += 2e-4  # rows at the first step past each multiple of the interval
    x = 3 + 0.5 * np.sin(2 * np.pi * 4 * t) + 0.2 * np.sin(2 * np.pi * 11 * t)
    with h5py.File(tmp_path / "probes.h5", "w") as f:
        f["step"] = np.arange(t.size)
        f["time"] = t
        f["pressure"] = x.reshape(-1, 1, 1)
        f.attrs["points"] = np.array([[0.5, 0.5]])
    from post.probes import amplitude_spectrum
    freq, amp = amplitude_spectrum(t, x)
    k4, k11 = np.argmin(abs(freq - 4)), np.argmin(abs(freq - 11))
    assert abs(amp[k4] - 0.5) < 0.05 and abs(amp[k11] - 0.2) < 0.03, (amp[k4], amp[k11])
    r = post("probes", tmp_path)
    peak = re.search(r"pressure peak ([0-9.]+) Hz \(amplitude ([0-9.]+)\)", r.stdout)
    assert peak and abs(float(peak[1]) - 4) < 0.5 / t[-1] and abs(float(peak[2]) - 0.5) < 0.05, r.stdout
    assert_png(tmp_path / "post" / "probes_pressure_p0.png")


# ------------------------------------------------------------------------------------------ slice
def test_slice_2d(cavity_run):
    last = field_files(cavity_run)[-1]
    post("slice", last, "--field", "velocity", "--component", "x")
    stem = cavity_run / "post" / f"{last.stem}_velocity_x"
    assert_png(stem.with_suffix(".png"))
    table = rows(stem.with_suffix(".csv"))
    assert len(table) == 32 * 32
    with h5py.File(last) as f:
        u = f["velocity"][..., 0]
    assert float(table[-1]["value"]) == pytest.approx(u[-1, -1])
    assert float(table[33]["x"]) == pytest.approx(1.5 / 32) and float(table[33]["y"]) == pytest.approx(1.5 / 32)
    post("slice", last, "--field", "pressure")
    assert_png(cavity_run / "post" / f"{last.stem}_pressure.png")


def test_slice_3d_planes(tgv3d_run):
    last = field_files(tgv3d_run)[-1]
    with h5py.File(last) as f:
        vel = f["velocity"][...]
    for axis, index, plane in (("z", 3, vel[3, :, :, 1]), ("y", 5, vel[:, 5, :, 1]), ("x", 0, vel[:, :, 0, 1])):
        post("slice", last, "--component", "y", "--axis", axis, "--index", index)
        stem = tgv3d_run / "post" / f"{last.stem}_velocity_y_{axis}{index}"
        assert_png(stem.with_suffix(".png"))
        values = np.array([float(x["value"]) for x in rows(stem.with_suffix(".csv"))])
        np.testing.assert_allclose(values, plane.ravel(), rtol=1e-12)
    post("slice", last)  # magnitude in the middle z plane
    assert_png(tgv3d_run / "post" / f"{last.stem}_velocity_z8.png")


def test_slice_errors(cavity_run):
    last = field_files(cavity_run)[-1]
    assert "no dataset 'vorticityx'" in post("slice", last, "--field", "vorticityx", expect=2).stderr
    assert "scalar field" in post("slice", last, "--field", "density", "--component", "x", expect=2).stderr
    for bad in ("w", "xy", "-1"):
        r = post("slice", last, "--component", bad, expect=2)
        assert f"--component {bad}: expected x, y, z, a component index or magnitude" in r.stderr


# ------------------------------------------------------------------------------------------ summary
def test_summary_of_several_runs(cavity_run, tgv2d_run, tgv3d_run, tmp_path):
    r = post("summary", cavity_run, tgv2d_run, tgv3d_run, "--keys", "physics.reynolds,domain.cells",
             "--csv", tmp_path / "s.csv")
    table = {x["name"]: x for x in rows(tmp_path / "s.csv")}
    assert set(table) == {"cavity", "tgv2d", "tgv3d"}
    c = table["cavity"]
    assert c["stop_reason"] == "steady state reached" and c["ranks"] == "1"
    assert int(c["steps"]) == 7000 and float(c["final_time"]) == pytest.approx(21.875)
    assert float(c["ghia_max_du"]) < 0.05 and float(c["ghia_max_dv"]) < 0.05
    assert float(c["physics.reynolds"]) == 100 and c["domain.cells"] == "[32, 32]"
    assert 0 < float(c["kinetic_energy"]) < 0.1 and 0.5 < float(c["max_velocity"]) < 1.0 and float(c["mlups"]) > 0
    assert table["tgv3d"]["stop_reason"] == "end time reached" and table["tgv3d"]["ghia_max_du"] == ""
    assert float(table["tgv2d"]["taylor_green_l2"]) < 0.05
    assert "steady state reached" in r.stdout and "taylor_green_l2" in r.stdout.splitlines()[0]


def test_summary_of_an_unfinished_or_failed_run(tmp_path):
    run = tmp_path / "broken"
    run.mkdir()
    (run / "run.log").write_text("eddy 0.1.0 | backend CPU | 4 MPI rank(s) | HDF5\n"
                                 "error: step 2000, t = 6.25 s: Mach number 405 exceeds 1.5 x numerics.max_mach\n")
    (run / "diagnostics.csv").write_text("step,time,kinetic_energy,max_velocity,mlups\n0,0,0,0,0\n1000,3.1,0.02,0.9,5\n")
    post("summary", run)
    s = rows(run / "post" / "summary.csv")[0]
    assert s["stop_reason"].startswith("error: step 2000") and s["ranks"] == "4" and s["steps"] == "1000"
    assert "no output" not in s["stop_reason"]
    assert "neither diagnostics.csv nor run.log" in post("summary", tmp_path / "nothing", expect=2).stderr


def test_summary_of_a_directory_whose_name_is_not_utf8(tmp_path):
    """A directory name of bytes that are not UTF-8: the table shows U+FFFD, the CSV is written, exit 0."""
    import os
    import subprocess
    run = os.path.join(os.fsencode(tmp_path), b"run_\xff")
    os.mkdir(run)
    with open(os.path.join(run, b"diagnostics.csv"), "w") as f:
        f.write("step,time,kinetic_energy,max_velocity,mlups\n0,0,0,0,0\n100,0.5,0.01,0.9,5\n")
    with open(os.path.join(run, b"run.log"), "w") as f:
        f.write("stopped at step 100, t = 0.5 s: step count reached; 5 MLUPS over the run\n")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "eddy_post.py"), "summary", os.fsdecode(run)],
                       capture_output=True)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert "run_\ufffd" in r.stdout.decode(errors="replace") and b"wrote " + run in r.stdout
    assert os.path.isfile(os.path.join(run, b"post", b"summary.csv"))


# ------------------------------------------------------------------------------------------ config reader
def test_parse_config_reads_eddys_resolved_config(cavity_run):
    with h5py.File(field_files(cavity_run)[-1]) as f:
        text = f.attrs["resolved_config"]
    cfg = parse_config(text.decode() if isinstance(text, bytes) else text)
    assert cfg["domain"]["cells"] == [32, 32] and cfg["physics"]["reynolds"] == 100.0
    assert cfg["boundaries"]["y_max"] == {"type": "moving_wall", "velocity": [1.0, 0.0], "profile": "uniform",
                                          "ramp_time": 0.0, "pressure": 0.0}
    assert cfg["boundaries"]["x_min"]["velocity"] == [] and cfg["output"]["dir"] == ""
    assert cfg["output"]["fields"]["every"] == "20.0t"


def test_parse_config_reads_shipped_configs():
    for path in sorted(REPO.glob("cases/*/*.yaml")):
        cfg = parse_config(path.read_text())
        assert cfg["name"] and cfg["domain"]["cells"], path
    cfg = parse_config((REPO / "cases" / "lid_driven_cavity" / "cavity2d.yaml").read_text())
    assert cfg["boundaries"]["x_min"] == {"type": "wall"}
    assert cfg["boundaries"]["y_max"]["velocity"] == [1.0, 0.0]
    assert cfg["run"]["steady"] == {"tolerance": 1.0e-5, "check_every": 1000}


def test_spectrum_prefers_the_spectral_runs_dataset(eddy, tmp_path):
    """A spectral run writes energy_spectrum/wavenumber into its field files; `spectrum` uses them, and they
    agree with the FFT of the velocity in the same file to round-off."""
    out = run_eddy(eddy, tmp_path / "decay", "decaying_turbulence_2d/decaying2d_spectral.yaml", "domain.cells=[32,32]",
                   "initial.peak_wavenumber=4", "run.end_time=0.01")
    first = field_files(out)[0]
    r = post("spectrum", first)
    assert "source: file" in r.stdout
    with h5py.File(first, "r") as f:
        vel, e_file, k_file = f["velocity"][...], f["energy_spectrum"][...], f["wavenumber"][...]
    k, e, modes, complete = energy_spectrum(vel, np.array([2 * np.pi, 2 * np.pi]))
    assert np.allclose(k, k_file, rtol=0, atol=1e-12)
    assert np.allclose(e, e_file, rtol=0, atol=1e-12 * e.max())


def test_spectra_over_time_of_an_lbm_run(eddy, tmp_path):
    """`spectra RUN` of a 3D LBM run with output.spectra: a PNG, and a CSV row per spectra.h5 row whose
    kinetic energy is sum E dk of that row (to 1e-12) and whose integral scale of the Taylor-Green
    vortex, all energy at |k| = sqrt(3) (shell 2), is (pi / 2) / 2 at t = 0; a missing file is exit 2."""
    out = run_eddy(eddy, tmp_path / "tgv", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[16,16,16]",
                   "run.end_time=0", "run.steps=20", "output.spectra.every=5", "output.fields.at_end=false",
                   "validation.reference=none")
    r = post("spectra", out)
    assert "5 rows of 15 shells (3D" in r.stdout, r.stdout
    assert_png(out / "post" / "spectra.png")
    with h5py.File(out / "spectra.h5", "r") as f:
        e, steps = f["energy_spectrum"][()], f["step"][()]
    with open(out / "post" / "spectra.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(x["step"]) for x in rows] == list(steps) == [0, 5, 10, 15, 20]
    for x, row in zip(rows, e):
        assert abs(float(x["kinetic_energy"]) - row.sum()) <= 1e-12 * row.sum()
    assert abs(float(rows[0]["integral_length"]) - np.pi / 4) < 1e-12
    post("spectra", tmp_path, expect=2)


def test_channel_of_laminar_poiseuille_flow(eddy, tmp_path):
    """`channel RUN` on the laminar channel (Re_tau 2, from rest, TRT, FP64, 20 diffusion times h^2/nu to a
    steady state within ~1e-12): the parabola U = g / (2 nu) y (2h - y) that TRT's half-way walls hold
    exactly, so the wall shear stress of the fit through the wall and the first two centres is g h: u_tau
    = sqrt(g h) = 1 to 1e-8 and Re_tau = 2; U+ is y+ (2 Re_tau - y+) / 4 at every centre to 1e-8."""
    out = run_eddy(eddy, tmp_path / "lam", "channel/channel180.yaml", "domain.cells=[4,16,4]",
                   "domain.length=[0.5,2.0,0.5]", "physics.reynolds=2", "numerics.lattice_velocity=0.02",
                   "initial.type=rest", "numerics.max_first_cell_yplus=0", "numerics.precision=fp64",
                   "numerics.collision=trt", "run.end_time=20", "output.statistics.start=18t", "output.statistics.every=10",
                   "output.statistics.write_every=0", "output.checkpoint.every=0", "output.diagnostics.every=1t")
    r = post("channel", out)
    m = re.search(r"u_tau (\S+) m/s, from the body force 1; Re_tau (\S+) ", r.stdout)
    assert m, r.stdout
    assert abs(float(m.group(1)) - 1) < 1e-8 and abs(float(m.group(2)) - 2) < 1e-6, r.stdout
    with open(out / "post" / "channel.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8
    for row in rows:
        yp = float(row["y_plus"])
        assert abs(float(row["U_plus"]) - yp * (4 - yp) / 4) < 1e-8, row
    assert_png(out / "post" / "channel.png")


def test_statistics_window_equals_a_later_start(eddy, tmp_path):
    """`--from T` (stats and channel) averages the samples after T alone: the newest stats file less the
    first written at or after T. On the laminar channel developing from rest (every profile changes in
    time), statistics from step 0 written at steps 40 and 80, windowed from t_end of the first (step 40),
    equal a second run's statistics from step 50, its first sample after 40 (samples every 10 steps), to
    round-off: 4 samples, t = 0.1 to 0.2, means and second moments within 1e-13 of their largest value.
    A window start after every earlier file is exit 2, naming the times there are."""
    common = ["domain.cells=[4,16,4]", "domain.length=[0.5,2.0,0.5]", "physics.reynolds=2",
              "numerics.lattice_velocity=0.02", "initial.type=rest", "numerics.max_first_cell_yplus=0",
              "numerics.precision=fp64", "run.end_time=0", "run.steps=80", "output.statistics.every=10",
              "output.checkpoint.every=0", "output.diagnostics.every=0"]
    whole = run_eddy(eddy, tmp_path / "whole", "channel/channel180.yaml", *common, "output.statistics.start=0",
                     "output.statistics.write_every=40")
    late = run_eddy(eddy, tmp_path / "late", "channel/channel180.yaml", *common, "output.statistics.start=50",
                    "output.statistics.write_every=0")
    r = post("stats", whole, "--from", "0.1", "-o", str(tmp_path / "w"))
    assert "less channel180_00000040.h5: 4 samples, t = 0.1..0.2 s" in r.stdout, r.stdout
    post("stats", late, "-o", str(tmp_path / "l"))
    for name in ("mean_velocity", "reynolds_stress", "mean_pressure"):
        with open(tmp_path / f"w_{name}.csv") as f:
            a = list(csv.DictReader(f))
        with open(tmp_path / f"l_{name}.csv") as f:
            b = list(csv.DictReader(f))
        assert len(a) == len(b) == 16 and a[0].keys() == b[0].keys()
        for key in a[0]:
            x, y = np.array([float(v[key]) for v in a]), np.array([float(v[key]) for v in b])
            assert np.abs(x - y).max() <= 1e-13 * max(np.abs(y).max(), 1e-300), (name, key)
    r = post("channel", whole, "--from", "0.1", "-o", str(tmp_path / "c"))
    assert "4 samples over" in r.stdout and "(t = 0.1 to 0.2)" in r.stdout, r.stdout
    r = post("stats", whole, "--from", "0.15", expect=2)
    assert "--from 0.15: no stats file written at or after t = 0.15" in r.stderr and "0.1" in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------ bench
def bench_lbm(name, mlups, fraction, precision="fp32", **extra):
    r = {"name": name, "date": "2026-11-30T00:00:00Z", "git_commit": "abc1234", "overrides": [],
         "backend": "CUDA", "device": "NVIDIA H200", "ranks": 1, "solver": "lbm", "precision": precision,
         "comm": "mpi", "lattice": "D3Q19", "collision": "bgk", "cells": 16777216,
         "mlups": [mlups, mlups * 1.01, mlups * 0.98], "mlups_median": mlups, "mlups_min": mlups * 0.98,
         "mlups_max": mlups * 1.01, "bytes_per_cell_step": 153, "bandwidth_fraction": fraction}
    r.update(extra)
    return r


def bench_spectral(name, ms, fft_ms):
    return {"name": name, "backend": "CUDA", "device": "NVIDIA H200", "ranks": 1, "solver": "spectral",
            "precision": "fp32", "dimensions": 3, "grid": "512x512x512", "ms_per_step": [ms, ms],
            "ms_per_step_median": ms, "ms_per_step_min": ms * 0.99, "fft_ms_per_step_median": fft_ms,
            "step_over_fft": ms / fft_ms}


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def table_rows(stdout):
    """The markdown table printed by `bench`, as dicts of its columns."""
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]


def test_bench_table_and_plot_compare_two_result_folders(tmp_path):
    """A folder of loose bench JSON files (one of them a dict of several results) against a suite folder
    with a failed config: every result is a row of its group with the figure and the roofline ratio."""
    old = tmp_path / "2026-11-29-h200"
    write_json(old / "d3q19.json", bench_lbm("bench_d3q19_256", 12932.6, 0.4994))
    write_json(old / "d3q19_fp64.json", bench_lbm("bench_d3q19_256", 9254.7, 0.717, precision="fp64"))
    write_json(old / "scaling.json", {"weak": bench_lbm("bench_d3q19_608", 28371.0, 0.548, ranks=2, comm="nccl"),
                                      "note": "not a result"})
    write_json(old / "spectral.json", bench_spectral("bench_spectral_3d_512", 58.8, 40.0))
    new = tmp_path / "2026-11-30-h200"
    write_json(new / "suite.json", {"hostname": "gpu1", "results": [
        {"name": "lbm_d3q19_256", "status": "ok", "exit_code": 0,
         "result": bench_lbm("bench_d3q19_256", 24950.0, 0.8912, overrides=["numerics.collision=bgk"])},
        {"name": "spectral_3d_512", "status": "ok", "exit_code": 0,
         "result": dict(bench_spectral("bench_spectral_3d_512", 44.0, 40.0), graph_speedup=1.0066)},
        {"name": "lbm_d3q27_256", "config": "configs/bench/lbm_d3q27_256.yaml", "status": "failed",
         "exit_code": 3, "json": None}]})
    write_json(new / "lbm_d3q19_256.json", bench_lbm("not read: suite.json is", 1.0, 0.1))

    r = post("bench", old, new, "--out", tmp_path / "plots" / "bench.png", "--markdown", tmp_path / "bench.md")
    rows = table_rows(r.stdout)
    assert len(rows) == 7, r.stdout
    assert (tmp_path / "bench.md").read_text().count("\n") == 9  # header, rule, 7 rows
    by = {(x["group"], x["case"].split(" ")[0], x["precision"], x["ranks"]): x for x in rows}
    a = by[("2026-11-29-h200", "bench_d3q19_256", "fp32", "1")]
    assert a["figure"] == "12,932.6 MLUPS" and a["ratio"] == "49.9% of copy bw" and a["status"] == "ok"
    assert a["best"] == "13,061.9"  # the fastest repetition: max MLUPS
    assert a["backend"] == "CUDA" and a["device"] == "NVIDIA H200" and "D3Q19 bgk" in a["case"]
    assert by[("2026-11-29-h200", "bench_d3q19_256", "fp64", "1")]["figure"] == "9,254.7 MLUPS"
    w = by[("2026-11-29-h200", "bench_d3q19_608", "fp32", "2")]
    assert w["ratio"] == "54.8% of copy bw" and "nccl" in w["case"]
    s = by[("2026-11-29-h200", "bench_spectral_3d_512", "fp32", "1")]
    assert s["figure"] == "58.800 ms/step" and s["ratio"] == "1.47x FFT floor" and "512x512x512" in s["case"]
    assert s["best"] == "58.212"  # min ms/step
    n = by[("2026-11-30-h200", "bench_d3q19_256", "fp32", "1")]
    assert n["figure"] == "24,950.0 MLUPS" and n["ratio"] == "89.1% of copy bw"
    assert "[numerics.collision=bgk]" in n["case"]
    # with the graphs' gain where the step ran as a recorded graph (graph_speedup: null or absent: nothing)
    assert by[("2026-11-30-h200", "bench_spectral_3d_512", "fp32", "1")]["ratio"] == "1.10x FFT floor; graphs 1.01x"
    f = by[("2026-11-30-h200", "lbm_d3q27_256", "", "")]
    assert f["status"] == "failed (exit 3)" and f["figure"] == ""
    assert "not read" not in r.stdout
    assert_png(tmp_path / "plots" / "bench.png", 20_000)
    assert f"wrote {tmp_path / 'plots' / 'bench.png'}" in r.stdout


def test_bench_single_file_and_bad_input(tmp_path):
    one = write_json(tmp_path / "one.json", bench_lbm("bench_d2q9_2048", 36387.0, 0.67))
    rows = table_rows(post("bench", one).stdout)
    assert [(x["group"], x["figure"]) for x in rows] == [("one", "36,387.0 MLUPS")]
    # numerics.storage: moments is named in the case; populations (or a result without the key) is not.
    mom = write_json(tmp_path / "mom.json", bench_lbm("bench_d2q9_2048", 40000.0, 0.5, collision="regularized",
                                                      storage="moments"))
    assert "D3Q19 regularized moments" in table_rows(post("bench", mom).stdout)[0]["case"]
    pop = write_json(tmp_path / "pop.json", bench_lbm("bench_d2q9_2048", 36387.0, 0.67, storage="populations"))
    assert "populations" not in table_rows(post("bench", pop).stdout)[0]["case"]
    # Write bandwidths (eddy bench since output.writer) join the ratio column, with the writer.
    io = write_json(tmp_path / "io.json", bench_lbm("bench_d2q9_2048", 36387.0, 0.67, writer="per_rank",
                                                     field_write_bytes=402653184, field_write_GBps=1.234,
                                                     checkpoint_write_bytes=603979776, checkpoint_write_GBps=0.5))
    ratio = table_rows(post("bench", io).stdout)[0]["ratio"]
    assert ratio == "67.0% of copy bw; writes 1.23/0.50 GB/s (fields/checkpoint, per_rank)", ratio
    assert "no such file" in post("bench", tmp_path / "missing", expect=2).stderr
    (tmp_path / "empty").mkdir()
    assert "no suite.json" in post("bench", tmp_path / "empty", expect=2).stderr
    (tmp_path / "bad.json").write_text("{not json")
    assert "not a readable JSON" in post("bench", tmp_path / "bad.json", expect=2).stderr


def test_bench_scaling_against_the_one_rank_results(tmp_path):
    """A suite run once on 1 and once on 2 ranks: strong scaling where the grid is the same (speed-up =
    throughput ratio, efficiency = speed-up / P), weak where the 2-rank grid is twice the 1-rank grid; no
    baseline, no scaling; the spectral and the LBM breakdowns are named in the ratio column."""
    one, two = tmp_path / "1gpu", tmp_path / "2gpu"
    write_json(one / "spectral.json", dict(bench_spectral("bench_spectral_3d_1024", 300.0, 280.0), points=2**30))
    write_json(one / "lbm.json", bench_lbm("bench_d3q19_608", 22000.0, 0.8))
    s2 = dict(bench_spectral("bench_spectral_3d_1024", 200.0, 150.0), points=2**30, ranks=2,
              breakdown={"pointwise": 50.0, "fft": 100.0, "pack": 0.0, "transfer": 40.0, "unpack": 10.0,
                         "total": 200.0}, transpose_peer_fraction=0.71)
    write_json(two / "spectral.json", s2)
    write_json(two / "weak.json", bench_lbm("bench_d3q19_608", 42900.0, 0.8, ranks=2, cells=2 * 16777216))
    write_json(two / "strong.json", bench_lbm(
        "bench_d3q19_608", 40700.0, 0.8, ranks=2, halo_bandwidth_gbs=10.0, peer_bandwidth_gbs=25.0,
        breakdown={"shell": 0.5, "pack": 0.1, "wait": 0.0, "transfer": 1.0, "inner": 8.0, "unpack": 0.1,
                   "links": 0.3, "pointwise": 0.001, "total": 10.001}))
    write_json(two / "alone.json", bench_lbm("bench_other", 40700.0, 0.8, ranks=2))
    rows = table_rows(post("bench", one, two).stdout)
    by = {(x["group"], x["case"].split(" ")[0], x["figure"]): x for x in rows}
    assert by[("2gpu", "bench_spectral_3d_1024", "200.000 ms/step")]["scaling"] == "strong 1.50x (75.0%)"
    ratio = by[("2gpu", "bench_spectral_3d_1024", "200.000 ms/step")]["ratio"]
    assert ratio.startswith("1.33x FFT floor (") and "fft 50%" in ratio and "transfer 20%" in ratio
    assert "transposes at 71% of peer bw" in ratio and " pack " not in ratio  # zero phases left out
    assert by[("2gpu", "bench_d3q19_608", "42,900.0 MLUPS")]["scaling"] == "weak 97.5%"
    assert by[("2gpu", "bench_d3q19_608", "40,700.0 MLUPS")]["scaling"] == "strong 1.85x (92.5%)"
    assert by[("2gpu", "bench_d3q19_608", "40,700.0 MLUPS")]["ratio"] == (
        "80.0% of copy bw (shell 5% pack 1% transfer 10% inner 80% unpack 1% links 3% halos at 40% of peer bw)")
    assert by[("2gpu", "bench_other", "40,700.0 MLUPS")]["scaling"] == ""
    assert by[("1gpu", "bench_d3q19_608", "22,000.0 MLUPS")]["scaling"] == ""


def test_field_files_are_ordered_by_step_past_eight_digits(tmp_path):
    """Past step 99,999,999 the names grow a digit: files are ordered by step, none is skipped."""
    (tmp_path / "fields").mkdir()
    for step in (99999999, 100000000, 100000001):
        (tmp_path / "fields" / f"cav_{step:08d}.h5").write_bytes(b"")
    (tmp_path / "fields" / "cav_00000100.h5.tmp").write_bytes(b"")
    assert [p.name for p in field_files(tmp_path)] == ["cav_99999999.h5", "cav_100000000.h5", "cav_100000001.h5"]
