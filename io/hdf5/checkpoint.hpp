#pragma once
/// Checkpoints (src/README.md, Output files): `checkpoints/ckpt_<step:08d>.h5` holding everything an
/// exact restart needs, a checksum on every dataset and one over the root attributes, written under a
/// temporary name and renamed when complete; `checkpoints/latest` (the file name, one line) is updated
/// last. Checkpoints are ordered by their step as a number (past step 99,999,999 the names grow a digit),
/// never by name. Rotation keeps the newest K of the run's lineage (a fresh start and the restarts that
/// continue it) and only ever removes checkpoints of that lineage older than the one just written.
/// A checkpoint written by the per_rank writer is `ckpt_<step:08d>.h5` with its rank files in
/// `ckpt_<step:08d>.ranks/`; rotation removes both.
#include <filesystem>
#include <string>
#include <vector>

#include "io/hdf5/block.hpp"
#include "io/hdf5/field_file.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {

/// What a checkpoint says about the run that wrote it (root attributes).
struct CheckpointMeta {
  std::string solver;       ///< "lbm" / "spectral"
  std::string scheme;       ///< e.g. the lattice "D3Q19" (LBM), "D3Q19/moments" with moment storage
  std::string precision;    ///< fp64 / fp32 / fp32/fp16
  std::vector<long> cells;  ///< global grid
  long step = 0;
  double time = 0.0;
  std::string resolved_config;  ///< YAML of the run
  double dt = 0.0;              ///< the time step [s]: time == step * dt
  std::string lineage;          ///< the run it belongs to: set at a fresh start, kept by the restarts
};

/// What a run expects of a checkpoint's `state` dataset: its global shape (block.global, `ncomp` values
/// per cell) and value type (`elem_bytes`: 8 double, 4 float, 2 uint16).
struct StateLayout {
  Block block;
  int ncomp = 1;
  int elem_bytes = 8;
};

/// A further part of the run's state beside `state` (the running statistics): this rank's block of an
/// FP64 array of `ncomp` values per cell (dataset `name`, on a grid of its own: the spectral state is
/// the coefficients, the statistics the grid points) and a small array every rank holds alike (dataset
/// `<name>_info`), both with checksums.
struct CheckpointArray {
  std::string name;
  const Block* block = nullptr;
  int ncomp = 1;
  const double* data = nullptr;
  std::vector<double> info;
};

/// The state: this rank's block of a distributed array with `ncomp` values per cell of `elem_bytes`
/// bytes (8 = double, 4 = float, 2 = a 16-bit storage word, kept as its bits: uint16), stored as
/// dataset `state`, and the further arrays.
struct CheckpointState {
  const Block* block = nullptr;
  int ncomp = 1;
  int elem_bytes = 8;
  const void* data = nullptr;
  std::vector<CheckpointArray> arrays{};
};

/// Write a checkpoint into `<out>/checkpoints` with writer `mode`, update `latest`, and remove the
/// checkpoints of meta.lineage older than meta.step beyond the newest `keep` (the one just written
/// included); checkpoints of other lineages, newer ones and unreadable files are left alone. Returns its
/// path; `stats` (when given) receives its bytes and write time. Collective.
std::string write_checkpoint(const std::filesystem::path& out, const CheckpointMeta& meta,
                             const CheckpointState& state, long keep, const parallel::Comm& comm,
                             WriteMode mode = WriteMode::automatic, WriteStats* stats = nullptr);

/// The checkpoint to restart from: `auto` = the newest one in `<out>/checkpoints` that is usable (ones
/// that are not are skipped with a warning; none at all is an InputError); anything else is a path,
/// refused (InputError) when missing or not usable. Usable: an eddy checkpoint whose metadata checksum
/// holds, with step >= 0 (the one in its name), finite time >= 0 equal to step * dt, a `state` of the
/// shape and type of `layout` (checked before it is read), and its state checksum holding. Collective.
std::string find_checkpoint(const std::filesystem::path& out, const std::string& restart,
                            const StateLayout& layout, const parallel::Comm& comm);

/// The checkpoint files `ckpt_<step>.h5` of a directory (`<out>/checkpoints`), highest step first.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& dir);

/// The step of a checkpoint's file name `ckpt_<step>.h5`, or -1 for any other name.
long checkpoint_step_of(const std::filesystem::path& file);

/// The metadata of a checkpoint file.
CheckpointMeta read_checkpoint_meta(const std::string& path);

/// This rank's block of the state (collective only in the sense that every rank reads its own box).
std::vector<unsigned char> read_checkpoint_state(const std::string& path, const Block& block, int ncomp,
                                                 int elem_bytes);

/// A CheckpointArray read back: this rank's block of `name` and its info. `found` is false (nothing read,
/// `why` says why) when the checkpoint holds no such array or one of another number of values per cell;
/// a checksum that does not hold is InputError naming the file. Collective.
struct CheckpointArrayRead {
  bool found = false;
  std::string why;
  std::vector<double> values, info;
};
CheckpointArrayRead read_checkpoint_array(const std::string& path, const std::string& name,
                                          const Block& block, int ncomp, const parallel::Comm& comm);

}  // namespace eddy::io
