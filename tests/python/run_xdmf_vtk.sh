#!/usr/bin/env bash
# The ParaView check of eddy's XDMF: VTK's XDMF reader, from PyPI's `vtk` (Debian 12's python3-vtk9 has
# no XDMF module), in a venv over Debian's Python packages, made once per build directory.
#   run_xdmf_vtk.sh BUILD_DIR
set -euo pipefail
venv=$1/pyvtk
here=$(cd "$(dirname "$0")" && pwd)
if ! "$venv/bin/python" -c "import vtkmodules.vtkIOXdmf2" 2>/dev/null; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check vtk
fi
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/test_xdmf_vtk.py"
