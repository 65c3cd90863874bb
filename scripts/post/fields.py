"""Reading eddy field files (src/README.md, Output files) into numpy arrays, and the matplotlib set-up."""
from dataclasses import dataclass, field

import h5py
import numpy as np

from .common import PostError, as_text, parse_config


@dataclass
class FieldFile:
    """One field file: its root attributes, the parsed resolved config, and lazy dataset access."""

    path: str
    dims: int
    step: int
    time: float
    length: np.ndarray
    config: dict = field(default_factory=dict)

    def read(self, name):
        """Dataset `name` as a float64 array (C order, z slowest)."""
        with h5py.File(self.path, "r") as f:
            if name not in f:
                have = ", ".join(k for k in f.keys())
                raise PostError(f"{self.path}: no dataset '{name}' (the file has: {have})")
            return np.asarray(f[name][...], dtype=np.float64)

    def coords(self):
        """Cell-centre coordinates (x, y[, z]) as 1D arrays."""
        with h5py.File(self.path, "r") as f:
            return tuple(np.asarray(f[c][...], dtype=np.float64) for c in "xyz"[: self.dims])

    def datasets(self):
        """Names of the field datasets (coordinates excluded)."""
        with h5py.File(self.path, "r") as f:
            return [k for k in f.keys() if k not in ("x", "y", "z") and isinstance(f[k], h5py.Dataset)]


def open_field(path):
    """Read the root attributes of an eddy field file."""
    try:
        with h5py.File(path, "r") as f:
            a = f.attrs
            missing = [k for k in ("dimensions", "step", "time") if k not in a]
            if missing:
                raise PostError(f"{path}: not an eddy field file (no attribute {', '.join(missing)})")
            dims = int(a["dimensions"])
            length = np.atleast_1d(np.asarray(a.get("domain_length", np.ones(dims)), dtype=np.float64))
            if length.size == 1:
                length = np.repeat(length, dims)
            config = parse_config(as_text(a["resolved_config"])) if "resolved_config" in a else {}
            return FieldFile(str(path), dims, int(a["step"]), float(a["time"]), length[:dims], config)
    except OSError as e:
        raise PostError(f"{path}: cannot open as HDF5 ({e})") from None


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
