#include "io/hdf5/checkpoint.hpp"

#include <algorithm>
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

/// Checkpoint files in a directory, newest (highest step) first.
std::vector<fs::path> checkpoints_in(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("ckpt_", 0) == 0 && e.path().extension() == ".h5") found.push_back(e.path());
  }
  std::sort(found.begin(), found.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() > b.filename(); });
  return found;
}

/// Whether every dataset of the checkpoint carries a checksum that holds (false for unreadable files).
bool valid(const std::string& path, std::string& why) {
  try {
    const FieldReader r(path);
    if (!r.has_attribute("format") || r.attribute_string("format") != format_name) {
      why = "not an eddy checkpoint";
      return false;
    }
    if (!r.verify_checksum("state")) {
      why = "checksum mismatch in dataset 'state'";
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

}  // namespace

std::string write_checkpoint(const fs::path& out, const CheckpointMeta& meta, const CheckpointState& state,
                             long keep, const parallel::Comm& comm, WriteMode mode, WriteStats* stats) {
  const fs::path dir = out / "checkpoints";
  if (comm.root()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
  }
  comm.barrier();
  char name[32];
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
    f.set_attribute("resolved_config", meta.resolved_config);
    f.set_attribute("eddy_version", EDDY_VERSION);
    f.set_attribute("ranks", static_cast<long>(comm.size()));
    if (state.elem_bytes == 8)
      f.write_array("state", static_cast<const double*>(state.data), *state.block, state.ncomp, Checksum::on);
    else if (state.elem_bytes == 4)
      f.write_array("state", static_cast<const float*>(state.data), *state.block, state.ncomp, Checksum::on);
    else
      f.write_array("state", static_cast<const std::uint16_t*>(state.data), *state.block, state.ncomp,
                    Checksum::on);
    f.commit();
    if (stats) *stats = f.stats();
  }
  if (comm.root()) {
    // `latest` last, through a rename, so it never names a file that is not complete.
    const std::string err = write_text_atomically((dir / "latest").string(), std::string(name) + "\n");
    if (!err.empty()) throw Error(err);
    const std::vector<fs::path> all = checkpoints_in(dir);
    for (std::size_t k = static_cast<std::size_t>(std::max(1L, keep)); k < all.size(); ++k)
      remove_field_file(all[k].string());  // with its rank files (per_rank writer)
  }
  comm.barrier();
  return path.string();
}

std::string find_checkpoint(const fs::path& out, const std::string& restart, const parallel::Comm& comm) {
  std::string chosen, message;
  if (comm.root()) {
    if (restart == "auto") {
      for (const fs::path& p : checkpoints_in(out / "checkpoints")) {
        std::string why;
        if (valid(p.string(), why)) {
          chosen = p.string();
          break;
        }
        log::warn(cat(p.string(), ": skipped for restart (", why, ")"));
      }
      if (chosen.empty())
        message = cat("--restart auto: no valid checkpoint in ", (out / "checkpoints").string(),
                      " (run without --restart to start afresh, or give --restart PATH)");
    } else {
      std::string why;
      if (valid(restart, why))
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

}  // namespace eddy::io
