#pragma once
/// Checkpoints (src/README.md, Output files): `checkpoints/ckpt_<step:08d>.h5` holding everything an
/// exact restart needs, a checksum on every dataset, written under a temporary name and renamed when
/// complete; the last K are kept and `checkpoints/latest` (the file name, one line) is updated last.
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
  std::string scheme;       ///< e.g. the lattice "D3Q19" (LBM)
  std::string precision;    ///< fp64 / fp32 / fp32/fp16
  std::vector<long> cells;  ///< global grid
  long step = 0;
  double time = 0.0;
  std::string resolved_config;  ///< YAML of the run
};

/// The state: this rank's block of a distributed array with `ncomp` values per cell of `elem_bytes`
/// bytes (8 = double, 4 = float, 2 = a 16-bit storage word, kept as its bits: uint16), stored as
/// dataset `state`.
struct CheckpointState {
  const Block* block = nullptr;
  int ncomp = 1;
  int elem_bytes = 8;
  const void* data = nullptr;
};

/// Write a checkpoint into `<out>/checkpoints` with writer `mode`, update `latest`, remove all but the
/// newest `keep`. Returns its path; `stats` (when given) receives its bytes and write time. Collective.
std::string write_checkpoint(const std::filesystem::path& out, const CheckpointMeta& meta,
                             const CheckpointState& state, long keep, const parallel::Comm& comm,
                             WriteMode mode = WriteMode::automatic, WriteStats* stats = nullptr);

/// The checkpoint to restart from: `auto` = the newest one in `<out>/checkpoints` whose checksums hold
/// (ones that fail are skipped with a warning; none at all is an InputError); anything else is a path,
/// refused (InputError) when missing or when a checksum fails. Collective.
std::string find_checkpoint(const std::filesystem::path& out, const std::string& restart,
                            const parallel::Comm& comm);

/// The metadata of a checkpoint file.
CheckpointMeta read_checkpoint_meta(const std::string& path);

/// This rank's block of the state (collective only in the sense that every rank reads its own box).
std::vector<unsigned char> read_checkpoint_state(const std::string& path, const Block& block, int ncomp,
                                                 int elem_bytes);

}  // namespace eddy::io
