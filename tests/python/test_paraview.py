"""A real client opens eddy's files: Debian's ParaView (pvpython, on an Xvfb display) reads the fields series of
a 2D cavity and a 3D Taylor-Green field file through its Xdmf reader (tests/python/paraview/pv_open.py).
The cell arrays it returns equal the HDF5 datasets bit for bit, its box and times are the run's, and the
picture it renders of the cavity's speed is read back as data: the box is 24 x 16 cells wide in pixels as
the domain is (1.5 x 1.0), hot (red) along the moving lid and cold (blue) in the bottom row, where the
flow all but rests. A slice series (output.slices) opens as one layer of cells in place in the box, its
arrays the slice files' and its picture hot and cold where the plane's speed is; a stats series
(output.statistics) opens with its means and the Reynolds stress's named components. ctest runs this with the pvpython it found, where Xvfb is installed too (tests/python/CMakeLists.txt);
scripts/install-deps.sh installs them, and nothing is installed while the tests run."""
import os
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import run_eddy

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def display():
    """An X server of this file's own: Xvfb on the first free display, which it names once it
    accepts connections (-displayfd), so that no two tests race for a display number. -noreset: by
    default the server resets when its last client leaves, and a pvpython connecting during the reset
    was refused ("bad X server connection", one run in CI)."""
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-noreset", "-screen", "0", "800x600x24", "-nolisten", "tcp"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    number = xvfb.stdout.readline().strip()
    assert number, "Xvfb did not start"
    yield ":" + number
    xvfb.terminate()
    xvfb.wait(timeout=30)


def pvpython_open(display, xmf, when, array, tmp_path, look="z"):
    """pv_open.py on the Xvfb display: the arrays (npz) and the picture (RGB floats, rows top to bottom),
    the camera looking down `look`."""
    pvpython = os.environ.get("EDDY_PVPYTHON")
    assert pvpython, "set EDDY_PVPYTHON to ParaView's pvpython (ctest does: tests/python/CMakeLists.txt)"
    npz, png = tmp_path / f"{Path(xmf).stem}.npz", tmp_path / f"{Path(xmf).stem}.png"
    cmd = [pvpython, "--force-offscreen-rendering", str(HERE / "paraview" / "pv_open.py"), str(xmf), str(when),
           array, str(npz), str(png), look]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ, DISPLAY=display))
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    import matplotlib.image

    return dict(np.load(npz)), matplotlib.image.imread(png)[..., :3]


def test_cavity_series_opens_renders_and_matches_hdf5(eddy, display, tmp_path):
    out = run_eddy(eddy, tmp_path / "c2", "lid_driven_cavity/cavity2d.yaml", "domain.cells=[24,16]",
                   "domain.length=[1.5,1.0]", "physics.reynolds=100", "run.end_time=1", "output.fields.every=0.5t",
                   "validation.reference=none")
    arrays, rgb = pvpython_open(display, out / "fields" / "fields.xmf", "last", "velocity", tmp_path)
    assert len(arrays["times"]) == 3 and abs(arrays["times"][-1] - 1.0) < 0.01, arrays["times"]
    assert np.allclose(arrays["bounds"][:4], [0, 1.5, 0, 1.0]), arrays["bounds"]
    last = sorted((out / "fields").glob("cavity2d_*.h5"))[-1]
    with h5py.File(last) as f:
        u = f["velocity"][...]  # (ny, nx, 2)
        rho = f["density"][...]
    if "velocity" in arrays:
        assert np.array_equal(arrays["velocity"][:, :2], u.reshape(-1, 2))
    else:
        assert np.array_equal(arrays["velocity_x"], u[..., 0].ravel())
        assert np.array_equal(arrays["velocity_y"], u[..., 1].ravel())
    assert np.array_equal(arrays["density"], rho.ravel())

    # The picture: the box is what is not the white background.
    box = np.argwhere(rgb.min(axis=2) < 0.97)
    (top, left), (bottom, right) = box.min(axis=0), box.max(axis=0)
    width, height = right - left + 1, bottom - top + 1
    assert abs(width / height - 1.5) < 0.03, (width, height)
    row = height / 16  # pixels per cell row
    red_minus_blue = rgb[..., 0] - rgb[..., 2]
    lid = red_minus_blue[top + int(0.2 * row):top + int(0.8 * row), left + 2:right - 1]
    floor = red_minus_blue[bottom - int(0.8 * row):bottom - int(0.2 * row), left + 2:right - 1]
    # Cool to Warm runs from (0.23, 0.30, 0.75) to (0.71, 0.02, 0.15): red - blue is -0.52 at the low end
    # and +0.56 at the high end of the colour map.
    speed = np.hypot(u[..., 0], u[..., 1])
    assert speed[-1].mean() > 0.5 * speed.max() and speed[0].max() < 0.1 * speed.max()  # what the colours show
    assert lid.mean() > 0.2, lid.mean()
    assert floor.mean() < -0.3, floor.mean()


def test_3d_vector_file_opens_and_matches_hdf5(eddy, display, tmp_path):
    out = run_eddy(eddy, tmp_path / "t3", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[8,8,8]", "run.end_time=0.2",
                   "output.fields.every=0.1t")
    xmf = sorted((out / "fields").glob("tgv3d_lbm_*.xmf"))[-1]
    arrays, rgb = pvpython_open(display, xmf, "last", "velocity", tmp_path)
    assert np.allclose(arrays["bounds"], [0, 2 * np.pi] * 3), arrays["bounds"]
    with h5py.File(Path(str(xmf)[:-4] + ".h5")) as f:
        u = f["velocity"][...]  # (nz, ny, nx, 3)
    assert arrays["velocity"].shape == (512, 3)
    assert np.array_equal(arrays["velocity"], u.reshape(-1, 3))
    assert rgb.std() > 0.05  # a picture, not a blank


def test_fp32_selection_opens_as_float(eddy, display, tmp_path):
    out = run_eddy(eddy, tmp_path / "c32", "lid_driven_cavity/cavity2d.yaml", "domain.cells=[24,16]",
                   "domain.length=[1.5,1.0]", "physics.reynolds=100", "run.end_time=0.5", "validation.reference=none",
                   "output.fields.variables=[velocity]", "output.fields.precision=fp32")
    arrays, _ = pvpython_open(display, sorted((out / "fields").glob("cavity2d_*.xmf"))[-1], "last", "velocity",
                              tmp_path)
    assert "density" not in arrays and "pressure" not in arrays
    with h5py.File(sorted((out / "fields").glob("cavity2d_*.h5"))[-1]) as f:
        u = f["velocity"][...]
    assert arrays["velocity_x"].dtype == np.float32
    assert np.array_equal(arrays["velocity_x"], u[..., 0].ravel())


def test_slice_series_opens_in_place_and_matches_hdf5(eddy, display, tmp_path):
    """output.slices of a 3D Taylor-Green run: each series (.xmf) opens as one layer of cells where the plane
    is (z layer 8 of 16: z from 8 dz to 9 dz; x layer 3), with every step's time, arrays bitwise the slice
    file's, and a picture of the z plane whose colours follow its speed cell by cell."""
    n, h = 16, 2 * np.pi / 16
    out = run_eddy(eddy, tmp_path / "s3", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[16,16,16]",
                   "run.end_time=0", "run.steps=20", "validation.reference=none", "output.fields.at_end=false",
                   "output.slices=[{axis: z, position: 3.3, every: 10, fields: [velocity, density]}, "
                   "{axis: x, position: 1.3, every: 10}]")
    arrays, rgb = pvpython_open(display, out / "slices" / "tgv3d_lbm_z8.xmf", "last", "velocity", tmp_path)
    assert len(arrays["times"]) == 3, arrays["times"]
    assert np.allclose(arrays["bounds"], [0, 2 * np.pi, 0, 2 * np.pi, 8 * h, 9 * h]), arrays["bounds"]
    with h5py.File(out / "slices" / "tgv3d_lbm_z8_00000020.h5") as f:
        u = f["velocity"][...]  # (ny, nx, 3)
        rho = f["density"][...]
        assert abs(arrays["times"][-1] - f.attrs["time"]) < 1e-12
    assert np.array_equal(arrays["velocity"], u.reshape(-1, 3))
    assert np.array_equal(arrays["density"], rho.ravel())
    # The picture: a square box (the plane is 2 pi x 2 pi), each cell's red - blue rising with its speed.
    box = np.argwhere(rgb.min(axis=2) < 0.97)
    (top, left), (bottom, right) = box.min(axis=0), box.max(axis=0)
    width, height = right - left + 1, bottom - top + 1
    assert abs(width / height - 1.0) < 0.03, (width, height)
    speed = np.sqrt((u**2).sum(axis=-1))
    red_minus_blue = rgb[..., 0] - rgb[..., 2]
    pixel = np.empty((n, n))
    for j in range(n):
        for i in range(n):
            # the middle of cell (i, j); image rows run top to bottom, y bottom to top
            pixel[j, i] = red_minus_blue[int(bottom - (j + 0.5) * height / n), int(left + (i + 0.5) * width / n)]
    fast, slow = speed >= np.quantile(speed, 0.9), speed <= np.quantile(speed, 0.1)
    assert pixel[fast].mean() > 0.2 and pixel[slow].mean() < -0.3, (pixel[fast].mean(), pixel[slow].mean())
    assert np.corrcoef(pixel.ravel(), speed.ravel())[0, 1] > 0.9

    arrays, rgb = pvpython_open(display, out / "slices" / "tgv3d_lbm_x3.xmf", "last", "velocity", tmp_path, "x")
    assert np.allclose(arrays["bounds"], [3 * h, 4 * h, 0, 2 * np.pi, 0, 2 * np.pi]), arrays["bounds"]
    with h5py.File(out / "slices" / "tgv3d_lbm_x3_00000020.h5") as f:
        assert np.array_equal(arrays["velocity"], f["velocity"][...].reshape(-1, 3))  # (nz, ny, 3)
    box = np.argwhere(rgb.min(axis=2) < 0.97)
    (top, left), (bottom, right) = box.min(axis=0), box.max(axis=0)
    assert abs((right - left + 1) / (bottom - top + 1) - 1.0) < 0.03
    assert rgb.std() > 0.05  # a picture, not a blank


def test_stats_series_opens_and_matches_hdf5(eddy, display, tmp_path):
    """output.statistics of a 3D Taylor-Green run: stats/stats.xmf opens with every stats file's time, the
    means and the Reynolds stress (as its six named components xx .. zz) bitwise the stats file's, and a
    picture of the mean speed that is not blank."""
    out = run_eddy(eddy, tmp_path / "st", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[8,8,8]", "run.end_time=0",
                   "run.steps=20", "validation.reference=none", "output.fields.at_end=false",
                   "output.statistics.every=2", "output.statistics.write_every=10",
                   "output.statistics.fields=[velocity, pressure, reynolds_stress]")
    arrays, rgb = pvpython_open(display, out / "stats" / "stats.xmf", "last", "mean_velocity", tmp_path)
    assert len(arrays["times"]) == 2, arrays["times"]
    assert np.allclose(arrays["bounds"], [0, 2 * np.pi] * 3), arrays["bounds"]
    with h5py.File(out / "stats" / "tgv3d_lbm_00000020.h5") as f:
        assert abs(arrays["times"][-1] - f.attrs["time"]) < 1e-12 and f.attrs["samples"] == 11
        assert np.array_equal(arrays["mean_velocity"], f["mean_velocity"][...].reshape(-1, 3))
        assert np.array_equal(arrays["mean_pressure"], f["mean_pressure"][...].ravel())
        uu = f["reynolds_stress"][...].reshape(-1, 6)
    for k, c in enumerate(["xx", "xy", "xz", "yy", "yz", "zz"]):
        assert np.array_equal(arrays[f"reynolds_stress_{c}"], uu[:, k]), c
    assert rgb.std() > 0.05  # a picture, not a blank
