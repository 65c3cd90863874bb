"""The XDMF eddy writes opens in ParaView: VTK's XDMF reader (vtkXdmfReader, the reader behind ParaView's
`Xdmf Reader`) loads the time series of a 2D run and a 3D file, and the cell arrays it returns equal the
HDF5 datasets; a PNG of the 2D speed, made from what VTK read, is written for a person to look at.
Needs VTK with its XDMF module (PyPI's `vtk`; Debian 12's python3-vtk9 has none): ctest runs this
with the venv that tests/python/CMakeLists.txt makes."""
from pathlib import Path

import h5py
import numpy as np

from conftest import run_eddy


def read_with_vtk(xmf, time_index=-1):
    """Cell arrays (name -> numpy array), bounds and time values of an XDMF file, through VTK."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
    from vtkmodules.vtkIOXdmf2 import vtkXdmfReader

    r = vtkXdmfReader()
    r.SetFileName(str(xmf))
    r.UpdateInformation()
    info = r.GetOutputInformation(0)
    times = list(info.Get(sddp.TIME_STEPS()) or [])
    if times:
        r.UpdateTimeStep(times[time_index])
    else:
        r.Update()
    data = r.GetOutputDataObject(0)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    cells = data.GetCellData()
    arrays = {cells.GetArrayName(k): vtk_to_numpy(cells.GetArray(k)) for k in range(cells.GetNumberOfArrays())}
    return arrays, data.GetBounds(), times


def test_2d_series_opens_and_matches_hdf5(eddy, tmp_path):
    out = run_eddy(eddy, tmp_path / "c2", "lid_driven_cavity/cavity2d.yaml", "domain.cells=[24,16]", "domain.length=[1.5,1.0]",
                   "physics.reynolds=100", "run.end_time=1", "output.fields.every=0.5t", "validation.reference=none")
    arrays, bounds, times = read_with_vtk(out / "fields" / "fields.xmf")
    assert len(times) == 3 and abs(times[-1] - 1.0) < 0.01, times
    assert np.allclose(bounds[:4], [0, 1.5, 0, 1.0]), bounds
    last = sorted((out / "fields").glob("cavity2d_*.h5"))[-1]
    with h5py.File(last) as f:
        u = f["velocity"][...]  # (ny, nx, 2)
        rho = f["density"][...]
    assert np.array_equal(arrays["velocity_x"], u[..., 0].ravel())
    assert np.array_equal(arrays["velocity_y"], u[..., 1].ravel())
    assert np.array_equal(arrays["density"], rho.ravel())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    speed = np.hypot(arrays["velocity_x"], arrays["velocity_y"]).reshape(16, 24)
    plt.imshow(speed, origin="lower", extent=[0, 1.5, 0, 1.0])
    plt.colorbar(label="|u| [m/s]")
    png = tmp_path / "cavity_speed_vtk.png"
    plt.savefig(png, dpi=80)
    assert png.stat().st_size > 1000


def test_3d_vector_opens_and_matches_hdf5(eddy, tmp_path):
    out = run_eddy(eddy, tmp_path / "t3", "taylor_green/tgv3d_lbm.yaml", "domain.cells=[8,8,8]", "run.end_time=0.2",
                   "output.fields.every=0.1t")
    xmf = sorted((out / "fields").glob("tgv3d_lbm_*.xmf"))[-1]
    arrays, bounds, _ = read_with_vtk(xmf)
    assert np.allclose(bounds, [0, 2 * np.pi] * 3), bounds
    with h5py.File(Path(str(xmf)[:-4] + ".h5")) as f:
        u = f["velocity"][...]  # (nz, ny, nx, 3)
    assert arrays["velocity"].shape == (512, 3)
    assert np.array_equal(arrays["velocity"], u.reshape(-1, 3))
