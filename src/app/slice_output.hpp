#pragma once
/// Planes of fields on their own schedules (`output.slices`, src/README.md, Output files): for each slice,
/// `slices/<name>_<axis><i>_<step:08d>.h5` at every due step and the XDMF time series
/// `slices/<name>_<axis><i>.xmf`, for movies.
///
/// A slice is the layer i of cells along its axis that contains its position (config::slice_layer). Its
/// values are the model's values_at() of the layer's cells, the numbers the field files hold there, bit
/// for bit. The ranks whose box holds a part of the layer write that part into one io::FieldFile of the
/// plane, collectively; the other ranks take part with an empty box. No rank holds more than its own
/// part of the plane.
#include <memory>
#include <vector>

#include "app/model.hpp"

namespace eddy::app {

/// The plane of `slice` as a 2D block (the two in-plane axes in order, x before y before z) and this
/// rank's part of it: its box's cells of the layer, or an empty box when the layer misses it.
io::Block slice_plane(const io::Block& grid, int axis, long layer);

/// output.slices on `simulation` (each on its schedule, including the initial state of a fresh start),
/// writing into `out`'s directory; a restart continues each XDMF series after the restart step and writes
/// the files of the later steps again. Lives while the simulation runs. Collective.
class SliceOutputs {
 public:
  SliceOutputs(Model& model, sim::Simulation& simulation, const RunOutput& out, const config::RunSpec& spec);
  ~SliceOutputs();
  SliceOutputs(const SliceOutputs&) = delete;
  SliceOutputs& operator=(const SliceOutputs&) = delete;

 private:
  struct Slice;
  std::vector<std::unique_ptr<Slice>> slices_;
};

}  // namespace eddy::app
