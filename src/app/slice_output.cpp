#include "app/slice_output.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/xdmf.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// The in-plane axes of a plane normal to `axis`, in order: (y, z), (x, z) or (x, y).
std::array<std::size_t, 2> plane_axes(int axis) {
  if (axis == 0) return {1, 2};
  if (axis == 1) return {0, 2};
  return {0, 1};
}

}  // namespace

io::Block slice_plane(const io::Block& grid, int axis, long layer) {
  const auto a = static_cast<std::size_t>(axis);
  const std::array<std::size_t, 2> uv = plane_axes(axis);
  io::Block p;
  p.dims = 2;
  p.global = {grid.global[uv[0]], grid.global[uv[1]], 1};
  const bool holds = layer >= grid.offset[a] && layer < grid.offset[a] + grid.extent[a];
  if (holds && grid.local_cells() > 0) {
    p.offset = {grid.offset[uv[0]], grid.offset[uv[1]], 0};
    p.extent = {grid.extent[uv[0]], grid.extent[uv[1]], 1};
  } else {
    p.extent = {0, 0, 0};
  }
  return p;
}

/// One slice: its plane, this rank's cells of it (local indices of the model's box, in the plane's
/// order: the first in-plane axis fastest) and its XDMF series.
struct SliceOutputs::Slice {
  Model& model;
  const RunOutput& out;
  const config::RunSpec& spec;
  const config::SliceSpec& slice;
  int axis = 2;
  long layer = 0;
  std::string stem;  ///< <name>_<axis><i>
  io::Block plane;
  std::vector<index_t> cells;
  std::vector<ProbeField> fields;
  std::unique_ptr<io::XdmfSeries> series;

  Slice(Model& m, const RunOutput& o, const config::RunSpec& s, const config::SliceSpec& c)
      : model(m), out(o), spec(s), slice(c), axis(config::slice_axis(c)), layer(config::slice_layer(s, c)) {
    stem = cat(spec.name, "_", slice.axis, layer);
    const std::vector<ProbeField> available = model.probe_fields();
    for (const std::string& name : slice.fields) {
      const auto f = std::find_if(available.begin(), available.end(),
                                  [&](const ProbeField& p) { return p.name == name; });
      if (f == available.end())
        throw InputError(cat("output.slices: '", name, "' is not a field of solver ", spec.solver));
      fields.push_back(*f);
    }
    const io::Block& b = model.grid().block;
    plane = slice_plane(b, axis, layer);
    const std::array<std::size_t, 2> uv = plane_axes(axis);
    Int3 c3{0, 0, 0};
    c3[static_cast<std::size_t>(axis)] = layer - b.offset[static_cast<std::size_t>(axis)];
    for (index_t v = 0; v < plane.extent[1]; ++v)
      for (index_t u = 0; u < plane.extent[0]; ++u) {
        c3[uv[0]] = u, c3[uv[1]] = v;
        cells.push_back((c3[2] * b.extent[1] + c3[1]) * b.extent[0] + c3[0]);
      }
    series = out.open_xdmf_series((std::filesystem::path("slices") / (stem + ".xmf")).string());
  }

  void write(const sim::Clock& clk) {
    const std::vector<std::string> names = slice.fields;
    const std::vector<std::vector<double>> values = model.values_at(names, cells);  // collective
    const FieldGrid& g = model.grid();
    const auto a = static_cast<std::size_t>(axis);
    const std::string file = io::step_file_name(stem, clk.step, ".h5");
    io::FieldFile f =
        io::FieldFile::create((out.dir() / "slices" / file).string(), plane, out.comm(), out.writer());
    f.set_attribute("solver", spec.solver);
    f.set_attribute("step", clk.step);
    f.set_attribute("time", clk.time);
    f.set_attribute("dimensions", static_cast<long>(g.block.dims));
    f.set_attribute("domain_length", spec.domain.length);
    f.set_attribute("axis", slice.axis);
    f.set_attribute("position", slice.position);
    f.set_attribute("index", layer);
    f.set_attribute("resolved_config", spec.resolved_yaml);
    f.set_attribute("eddy_version", EDDY_VERSION);
    f.set_attribute("backend", backend::name());
    f.set_attribute("ranks", static_cast<long>(out.comm().size()));
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const ProbeField& p = fields[k];
      p.components > 1 ? f.write_vector(p.name, values[k].data(), p.components)
                       : f.write_scalar(p.name, values[k].data());
      if (!p.units.empty()) f.set_dataset_attribute(p.name, "units", p.units);
    }
    // Cell centres: the plane's two axes whole, its own axis the layer's one centre.
    for (std::size_t d = 0; d < 3; ++d) {
      std::vector<double> x;
      for (index_t i = d == a ? layer : 0; i < (d == a ? layer + 1 : g.block.global[d]); ++i)
        x.push_back((double(i) + 0.5) * g.spacing[d]);
      f.write_global(std::string(1, "xyz"[d]), x);
    }
    // In ParaView the plane is one layer of cells of the 3D mesh, where it lies in the domain.
    io::XdmfGrid x;
    x.h5_file = file;
    x.step = clk.step;
    x.time = clk.time;
    x.dims = 3;
    x.cells = g.block.global;
    x.cells[a] = 1;
    x.origin[a] = double(layer) * g.spacing[a];
    x.spacing = g.spacing;
    x.fields = f.fields();
    f.commit();
    series->add(x);
  }
};

SliceOutputs::SliceOutputs(Model& model, sim::Simulation& simulation, const RunOutput& out,
                           const config::RunSpec& spec) {
  if (spec.output.slices.empty()) return;
  std::string err;
  if (out.comm().root()) {
    std::error_code ec;
    std::filesystem::create_directories(out.dir() / "slices", ec);
    if (ec) err = cat((out.dir() / "slices").string(), ": cannot create the directory (", ec.message(), ")");
  }
  err = out.comm().broadcast(err);
  if (!err.empty()) throw Error(err);
  for (const config::SliceSpec& c : spec.output.slices) {
    slices_.push_back(std::make_unique<Slice>(model, out, spec, c));
    simulation.add("slice " + slices_.back()->stem, c.every,
                   [s = slices_.back().get()](const sim::Clock& clk) { s->write(clk); });
  }
}

SliceOutputs::~SliceOutputs() = default;

}  // namespace eddy::app
