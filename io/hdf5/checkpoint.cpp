#include "io/hdf5/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/field_reader.hpp"
#include "io/hdf5/text_file.hpp"

namespace eddy::io {
namespace fs = std::filesystem;
using log::cat;

namespace {

constexpr const char* format_name = "eddy-checkpoint-1";
constexpr const char* meta_scheme = "eddy-fnv1a64-1";

/// A dataset shape as "(n0, n1, ...)".
std::string text(const std::vector<index_t>& v) {
  std::string s;
  for (index_t n : v) s += (s.empty() ? "(" : ", ") + std::to_string(n);
  return s + ")";
}

/// The checksum of the root attributes a restart trusts: "<scheme>:<16 hex digits>", FNV-1a over their
/// text (doubles by their exact hexadecimal form).
std::string meta_checksum(const CheckpointMeta& m) {
  char num[96];
  std::string text = cat(format_name, "\n", m.solver, "\n", m.scheme, "\n", m.precision, "\n");
  for (long n : m.cells) text += std::to_string(n) + ",";
  std::snprintf(num, sizeof num, "\n%ld\n%a\n%a\n", m.step, m.time, m.dt);
  text += num + m.lineage + "\n" + m.resolved_config;
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  std::snprintf(num, sizeof num, "%s:%016llx", meta_scheme, static_cast<unsigned long long>(h));
  return num;
}

/// Empty when the checkpoint is usable for a run whose state is `layout`, else why not. Only rank 0.
std::string unusable(const std::string& path, const StateLayout& layout) {
  try {
    const FieldReader r(path);
    if (!r.has_attribute("format") || r.attribute_string("format") != format_name)
      return "not an eddy checkpoint";
    if (!r.has_attribute("meta_checksum"))
      return "no checksum of its metadata (written by an older eddy: its step and time cannot be "
             "trusted for a restart; start afresh)";
    const CheckpointMeta m = read_checkpoint_meta(path);
    if (r.attribute_string("meta_checksum") != meta_checksum(m))
      return "checksum mismatch in its metadata (the root attributes step, time, dt, lineage, config)";
    if (m.step < 0) return cat("step ", m.step, " is negative");
    const long named = checkpoint_step_of(path);
    if (named >= 0 && named != m.step)
      return cat("its name says step ", named, " but it holds step ", m.step);
    if (!(std::isfinite(m.dt) && m.dt > 0)) return cat("time step dt = ", m.dt, " is not a positive number");
    const double t = static_cast<double>(m.step) * m.dt;
    if (!(std::isfinite(m.time) && m.time >= 0 && std::fabs(m.time - t) <= 1e-12 * t))
      return cat("time ", m.time, " s is not step * dt = ", t, " s");
    const std::vector<index_t> want = layout.block.file_shape(layout.ncomp), got = r.shape("state");
    if (got != want) {
      std::string cells;
      for (long n : m.cells) cells += (cells.empty() ? "[" : ", ") + std::to_string(n);
      return cat("dataset 'state' has shape ", text(got), ", the run's state is ", text(want),
                 " (the checkpoint's grid, domain.cells, is ", cells, "], its scheme ", m.scheme, ")");
    }
    if (r.value_bytes("state") != layout.elem_bytes || r.is_integer("state") != (layout.elem_bytes == 2))
      return cat("dataset 'state' holds ", r.value_bytes("state"), "-byte ",
                 r.is_integer("state") ? "integers" : "floating-point values", ", the run's state ",
                 layout.elem_bytes, "-byte ", layout.elem_bytes == 2 ? "integers" : "floating-point values",
                 " (the checkpoint's precision, numerics.precision, is ", m.precision, ")");
    if (!r.verify_checksum("state")) return "checksum mismatch in dataset 'state'";
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

/// The lineage of a checkpoint file ("" when unreadable or without one).
std::string lineage_of(const fs::path& p) {
  try {
    const FieldReader r(p.string());
    return r.has_attribute("lineage") ? r.attribute_string("lineage") : "";
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

long checkpoint_step_of(const fs::path& file) {
  const std::string n = file.filename().string();
  if (n.size() <= 8 || n.rfind("ckpt_", 0) != 0 || n.compare(n.size() - 3, 3, ".h5") != 0) return -1;
  const std::string digits = n.substr(5, n.size() - 8);
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stol(digits);
}

std::vector<fs::path> list_checkpoints(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (checkpoint_step_of(e.path()) >= 0) found.push_back(e.path());
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    const long sa = checkpoint_step_of(a), sb = checkpoint_step_of(b);
    return sa != sb ? sa > sb : a.filename() < b.filename();
  });
  return found;
}

std::string write_checkpoint(const fs::path& out, const CheckpointMeta& meta, const CheckpointState& state,
                             long keep, const parallel::Comm& comm, WriteMode mode, WriteStats* stats) {
  const fs::path dir = out / "checkpoints";
  if (comm.root()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
  }
  comm.barrier();
  char name[48];
  std::snprintf(name, sizeof name, "ckpt_%08ld.h5", meta.step);
  const fs::path path = dir / name;
  {
    FieldFile f = FieldFile::create(path.string(), *state.block, comm, mode);
    f.set_attribute("format", format_name);
    f.set_attribute("solver", meta.solver);
    f.set_attribute("scheme", meta.scheme);
    f.set_attribute("precision", meta.precision);
    f.set_attribute("cells", meta.cells);
    f.set_attribute("step", meta.step);
    f.set_attribute("time", meta.time);
    f.set_attribute("dt", meta.dt);
    f.set_attribute("lineage", meta.lineage);
    f.set_attribute("resolved_config", meta.resolved_config);
    f.set_attribute("meta_checksum", meta_checksum(meta));
    f.set_attribute("eddy_version", EDDY_VERSION);
    f.set_attribute("ranks", static_cast<long>(comm.size()));
    if (state.elem_bytes == 8)
      f.write_array("state", static_cast<const double*>(state.data), *state.block, state.ncomp, Checksum::on);
    else if (state.elem_bytes == 4)
      f.write_array("state", static_cast<const float*>(state.data), *state.block, state.ncomp, Checksum::on);
    else
      f.write_array("state", static_cast<const std::uint16_t*>(state.data), *state.block, state.ncomp,
                    Checksum::on);
    for (const CheckpointArray& a : state.arrays) {
      f.write_array(a.name, a.data, *a.block, a.ncomp, Checksum::on);
      f.write_global(a.name + "_info", a.info, Checksum::on);
    }
    f.commit();
    if (stats) *stats = f.stats();
  }
  std::string err;
  if (comm.root()) {
    // `latest` last, through a rename, so it never names a file that is not complete.
    err = write_text_atomically((dir / "latest").string(), std::string(name) + "\n");
    long kept = 1;  // the one just written
    for (const fs::path& p : list_checkpoints(dir)) {
      const long s = checkpoint_step_of(p);
      if (s >= meta.step || lineage_of(p) != meta.lineage) continue;
      if (++kept > std::max(1L, keep)) remove_field_file(p.string());  // with its rank files (per_rank)
    }
  }
  err = comm.broadcast(err);
  if (!err.empty()) throw Error(err);
  return path.string();
}

std::string find_checkpoint(const fs::path& out, const std::string& restart, const StateLayout& layout,
                            const parallel::Comm& comm) {
  std::string chosen, message;
  if (comm.root()) {
    if (restart == "auto") {
      for (const fs::path& p : list_checkpoints(out / "checkpoints")) {
        const std::string why = unusable(p.string(), layout);
        if (why.empty()) {
          chosen = p.string();
          break;
        }
        log::warn(cat(p.string(), ": skipped for restart (", why, ")"));
      }
      if (chosen.empty())
        message = cat("--restart auto: no valid checkpoint in ", (out / "checkpoints").string(),
                      " (run without --restart to start afresh, or give --restart PATH)");
    } else {
      const std::string why = unusable(restart, layout);
      if (why.empty())
        chosen = restart;
      else
        message = cat("--restart ", restart, ": refused: ", why);
    }
  }
  message = comm.broadcast(message);
  if (!message.empty()) throw InputError(message);
  return comm.broadcast(chosen);
}

CheckpointMeta read_checkpoint_meta(const std::string& path) {
  const FieldReader r(path);
  CheckpointMeta m;
  m.solver = r.attribute_string("solver");
  m.scheme = r.attribute_string("scheme");
  m.precision = r.attribute_string("precision");
  m.cells = r.attribute_longs("cells");
  m.step = r.attribute_long("step");
  m.time = r.attribute_double("time");
  m.resolved_config = r.attribute_string("resolved_config");
  if (r.has_attribute("dt")) m.dt = r.attribute_double("dt");
  if (r.has_attribute("lineage")) m.lineage = r.attribute_string("lineage");
  return m;
}

std::vector<unsigned char> read_checkpoint_state(const std::string& path, const Block& block, int ncomp,
                                                 int elem_bytes) {
  const FieldReader r(path);
  if (r.value_bytes("state") != elem_bytes)
    throw InputError(
        cat(path, ": state stored with ", r.value_bytes("state"), "-byte values, the run uses ", elem_bytes));
  std::vector<unsigned char> out;
  auto read = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> v = r.read_block<T>("state", block, ncomp);
    out.resize(v.size() * sizeof(T));
    std::copy_n(reinterpret_cast<const unsigned char*>(v.data()), out.size(), out.data());
  };
  if (elem_bytes == 8)
    read(double{});
  else if (elem_bytes == 4)
    read(float{});
  else
    read(std::uint16_t{});
  return out;
}

CheckpointArrayRead read_checkpoint_array(const std::string& path, const std::string& name,
                                          const Block& block, int ncomp, const parallel::Comm& comm) {
  const FieldReader r(path);
  CheckpointArrayRead out;
  if (!r.has_dataset(name) || !r.has_dataset(name + "_info")) {
    out.why = "the checkpoint holds no '" + name + "'";
    return out;
  }
  if (r.shape(name) != block.file_shape(ncomp)) {
    out.why = cat("its '", name, "' has shape ", text(r.shape(name)), ", the run's is ",
                  text(block.file_shape(ncomp)));
    return out;
  }
  const bool good = r.verify_checksum(name, block, ncomp, comm) && r.verify_checksum(name + "_info");
  if (!comm.any(!good)) {
    out.found = true;
    out.values = r.read_block<double>(name, block, ncomp);
    out.info = r.read<double>(name + "_info").data;
    return out;
  }
  throw InputError(cat(path, ": checksum mismatch in dataset '", name, "' (the file is damaged)"));
}

}  // namespace eddy::io
