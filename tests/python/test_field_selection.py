"""output.fields.variables and output.fields.precision: the field files hold the chosen fields only, and an
FP64 run written with precision fp32 holds exactly the FP64 fields rounded to float32 (its XDMF says 4
bytes, so readers take them as float). The checkpoints are not affected: a restart stays exact."""
import h5py
import numpy as np

from conftest import run_eddy

CAVITY = ("domain.cells=[16,12]", "domain.length=[1.6,1.2]", "physics.reynolds=100", "run.end_time=0.5",
          "output.fields.every=0.25t", "validation.reference=none")


def test_fp32_velocity_only_is_the_fp64_run_rounded(eddy, tmp_path):
    full = run_eddy(eddy, tmp_path / "full", "lid_driven_cavity/cavity2d.yaml", *CAVITY)
    cut = run_eddy(eddy, tmp_path / "cut", "lid_driven_cavity/cavity2d.yaml", *CAVITY,
                   "output.fields.variables=[velocity]", "output.fields.precision=fp32")
    files = sorted((full / "fields").glob("cavity2d_*.h5"))
    assert len(files) == 3
    for f in files:
        with h5py.File(f) as a, h5py.File(cut / "fields" / f.name) as b:
            assert {"velocity", "density", "pressure"} <= set(a) and "density" not in b and "pressure" not in b
            assert a["velocity"].dtype == np.float64 and b["velocity"].dtype == np.float32
            assert np.array_equal(b["velocity"][...], a["velocity"][...].astype(np.float32))
            assert b["velocity"].attrs["units"] == a["velocity"].attrs["units"]
        xmf = (cut / "fields" / f.name.replace(".h5", ".xmf")).read_text()
        assert 'Precision="4" Format="HDF"' in xmf and "density" not in xmf
