"""Fixtures of the Python tests: the eddy executable (env EDDY_BIN, required) and small runs made with it."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
POST = REPO / "scripts" / "eddy_post.py"


@pytest.fixture(scope="session")
def eddy():
    """The eddy executable; the tests fail (they do not skip) when EDDY_BIN is not set or not runnable."""
    path = os.environ.get("EDDY_BIN")
    assert path, "set EDDY_BIN to the eddy executable (ctest does: tests/python/CMakeLists.txt)"
    assert os.access(path, os.X_OK), f"EDDY_BIN={path} is not an executable"
    return path


def run_eddy(eddy, out, config, *sets):
    """eddy run CONFIG --set ... --out OUT; asserts exit 0 and returns OUT."""
    cmd = [eddy, "run", str(REPO / "cases" / config), "--out", str(out), "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return Path(out)


def post(*args, expect=0):
    """Run scripts/eddy_post.py with this interpreter; asserts the exit code, returns the CompletedProcess."""
    r = subprocess.run([sys.executable, str(POST), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == expect, f"eddy_post.py {' '.join(map(str, args))} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="session")
def cavity_run(eddy, tmp_path_factory):
    """2D cavity, 32^2, Re 100, run to its steady state (about 22 L/U; 7000 steps)."""
    return run_eddy(eddy, tmp_path_factory.mktemp("runs") / "cavity", "lid_driven_cavity/cavity2d.yaml",
                    "domain.cells=[32,32]", "physics.reynolds=100", "run.end_time=40")


@pytest.fixture(scope="session")
def tgv2d_run(eddy, tmp_path_factory):
    """2D Taylor-Green vortex, 32^2, to t = 0.5 s (the t = 0 file is the exact initial field)."""
    return run_eddy(eddy, tmp_path_factory.mktemp("runs") / "tgv2d", "taylor_green/tgv2d_lbm.yaml",
                    "domain.cells=[32,32]", "run.end_time=0.5")


@pytest.fixture(scope="session")
def tgv3d_run(eddy, tmp_path_factory):
    """3D Taylor-Green vortex (LBM), 16^3, Re 1600, to t = 1 s with fields every 0.5 s."""
    return run_eddy(eddy, tmp_path_factory.mktemp("runs") / "tgv3d", "taylor_green/tgv3d_lbm.yaml",
                    "domain.cells=[16,16,16]", "run.end_time=1", "output.fields.every=0.5t")


@pytest.fixture(scope="session")
def tgv3d_spectral_run(eddy, tmp_path_factory):
    """3D Taylor-Green vortex (spectral), 16^3, Re 1600, to t = 1 s: diagnostics with a dissipation column,
    every step (the shipped 0.01t is below this grid's time step, which eddy refuses)."""
    return run_eddy(eddy, tmp_path_factory.mktemp("runs") / "tgv3d_spectral", "taylor_green/tgv3d_spectral.yaml",
                    "domain.cells=[16,16,16]", "run.end_time=1", "output.diagnostics.every=1")
