"""Run by ParaView's own Python (pvpython, on an X display such as Xvfb): open an XDMF file of eddy with ParaView's Xdmf
reader, save the cell arrays it returns at one time, and render a picture of one array.

    pvpython pv_open.py XMF TIME ARRAY OUT_NPZ OUT_PNG [LOOK]

TIME: the time to show ("last" for the series' last one, or a number); ARRAY: the cell array to colour by
(its magnitude for a vector; a 2D file's vector, stored as ARRAY_x and ARRAY_y, through a Calculator). OUT_NPZ holds every cell array (name -> values, cells x components), the
bounds and the times the reader reports. OUT_PNG: 400 x 400 pixels, white background, parallel projection
looking down z at the whole box, the default colour map (Cool to Warm: blue low, red high) over the
array's range, no colour bar, so that a test can read the picture's pixels as data. LOOK (default z) is
the axis the camera looks down: a slice normal to x is seen along -x (y to the right, z up), one normal to y
along +y (x to the right, z up).
"""
import sys

import numpy as np
from paraview import servermanager
from paraview.simple import Calculator, ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, Render, ResetCamera
from paraview.simple import SaveScreenshot, Show, UpdatePipeline, XDMFReader
from paraview.vtk.util.numpy_support import vtk_to_numpy

xmf, when, array, out_npz, out_png = sys.argv[1:6]
look = sys.argv[6] if len(sys.argv) > 6 else "z"
reader = XDMFReader(FileNames=[xmf])
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues) if reader.TimestepValues else []
if isinstance(reader.TimestepValues, float):
    times = [reader.TimestepValues]
t = (times[-1] if times else 0.0) if when == "last" else float(when)
UpdatePipeline(time=t, proxy=reader)

data = servermanager.Fetch(reader)
if data.IsA("vtkMultiBlockDataSet"):
    data = data.GetBlock(0)
cells = data.GetCellData()
arrays = {cells.GetArrayName(k): vtk_to_numpy(cells.GetArray(k)) for k in range(cells.GetNumberOfArrays())}
np.savez(out_npz, bounds=np.array(data.GetBounds()), times=np.array(times), **arrays)

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [400, 400]
view.Background = [1.0, 1.0, 1.0]
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
view.OrientationAxesVisibility = 0
view.CameraParallelProjection = 1
view.ViewTime = t
source = reader
if array not in arrays:  # a 2D file's vector is stored as components (velocity_x, velocity_y): its magnitude
    parts = [f"{array}_{c}" for c in "xyz" if f"{array}_{c}" in arrays]
    source = Calculator(Input=reader, AttributeType="Cell Data", ResultArrayName=array,
                        Function="sqrt(" + "+".join(f"{p}^2" for p in parts) + ")")
display = Show(source, view)
display.Representation = "Surface"
ncomp = arrays[array].shape[1] if array in arrays and arrays[array].ndim == 2 else 1
ColorBy(display, ("CELLS", array, "Magnitude") if ncomp > 1 else ("CELLS", array))
display.RescaleTransferFunctionToDataRange(False, True)
display.SetScalarBarVisibility(view, False)
GetColorTransferFunction(array).ApplyPreset("Cool to Warm", True)
if look == "x":
    view.ResetActiveCameraToNegativeX()
elif look == "y":
    view.ResetActiveCameraToPositiveY()
ResetCamera(view)
Render(view)
SaveScreenshot(out_png, view, ImageResolution=[400, 400], TransparentBackground=0)
