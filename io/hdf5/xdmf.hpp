#pragma once
/// XDMF 3 descriptions of eddy's field files, so ParaView and VisIt open the output directly.
///
/// Each output time gets `<name>_<step:08d>.xmf` beside its .h5, and the directory gets one
/// time-series file (`fields.xmf`, a Temporal collection of the same grids) rewritten after every
/// output; open either. The mesh is a 3DCoRectMesh (uniform spacing) with cell-centred attributes;
/// a 2D grid is one layer of cells of it in the xy plane, because ParaView shows a 2DCoRectMesh in
/// the yz plane. XDMF lists dimensions, origin and spacing slowest first (z y x), as the datasets
/// are stored.
///
/// Vectors: a 3-component vector in 3D is an XDMF `Vector`. Any other component count, in
/// particular 2D velocity `(ny, nx, 2)`, becomes one `Scalar` per component (`velocity_x`,
/// `velocity_y`) selected by HyperSlab: ParaView's XDMF readers take a Vector as 3 components and
/// mis-read 2-component data. In ParaView, `velocity_x*iHat + velocity_y*jHat` in a Calculator
/// rebuilds the vector.
///
/// All files are written by rank 0 through a temporary name and a rename; the functions taking a
/// Comm are collective so that every rank learns of a failure (eddy::Error naming the file).
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {

/// One output time on a uniform grid.
struct XdmfGrid {
  std::string h5_file;              ///< the .h5 as the .xmf refers to it: relative to the .xmf's folder
  long step = 0;                    ///< time step of the output
  double time = 0.0;                ///< physical time [s]
  int dims = 3;                     ///< 2 or 3
  Int3 cells{1, 1, 1};              ///< cells per direction (x, y, z)
  Real3 origin{0.0, 0.0, 0.0};      ///< lower corner of the domain (a cell face, not a centre) [m]
  Real3 spacing{1.0, 1.0, 1.0};     ///< cell size per direction [m]
  std::vector<DatasetInfo> fields;  ///< datasets to show, e.g. FieldFile::fields()
};

/// `<name>_<step:08d><ext>`, the file name eddy gives each output time (ext e.g. ".h5").
std::string step_file_name(const std::string& name, long step, const std::string& ext);

/// The `<Grid>` element of one output time, each line indented by `indent` spaces.
std::string xdmf_grid_xml(const XdmfGrid& g, int indent);

/// Write a single-time XDMF file. Collective (rank 0 writes).
void write_xdmf(const std::string& xmf_path, const XdmfGrid& g, const parallel::Comm& comm);

/// The time-series file: a Temporal collection of all output times so far.
class XdmfSeries {
 public:
  /// A new series at `path`; nothing is written before the first add().
  XdmfSeries(std::string path, const parallel::Comm& comm);
  /// Continue the series of an earlier run (restart): keeps its times with step <= keep_up_to_step
  /// and rewrites the file at once. A missing file starts an empty series. Collective.
  static XdmfSeries open_append(const std::string& path, const parallel::Comm& comm, long keep_up_to_step);

  /// Add one output time (replacing one of the same step) and rewrite the file. Collective.
  void add(const XdmfGrid& g);
  /// Output times held (on rank 0; 0 elsewhere).
  size_t size() const { return grids_.size(); }
  const std::string& path() const { return path_; }

 private:
  void rewrite();
  std::string path_;
  parallel::Comm comm_;
  std::vector<std::pair<long, std::string>> grids_;  // step, <Grid> text; rank 0 only
};

}  // namespace eddy::io
