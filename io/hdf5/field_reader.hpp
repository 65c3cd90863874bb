#pragma once
/// Reading eddy's HDF5 files back: whole datasets, one rank's block, attributes, checksums.
///
/// A FieldReader opens the file read-only on the calling rank alone (no MPI-IO), so any rank can read
/// any part independently; only verify_checksum(name, block, ncomp, comm) is collective. Values are
/// converted to the requested type by HDF5 (reading a float dataset as double is exact).
/// Errors (missing file, dataset or attribute, wrong shape) throw eddy::InputError naming the file:
/// a file given to eddy to read is input. A file of the per_rank writer reads like any other: its
/// virtual datasets' rank files are looked up beside it (`<stem>.ranks/`, whatever the working
/// directory), and a dataset whose rank files are missing is an InputError, not fill values.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {

/// A dataset read back: its shape in file (C) order and its values in that order.
template <class T>
struct Array {
  std::vector<index_t> shape;
  std::vector<T> data;
};

class FieldReader {
 public:
  /// Open `path` read-only.
  explicit FieldReader(const std::string& path);
  FieldReader(FieldReader&&) noexcept;
  FieldReader& operator=(FieldReader&&) noexcept;
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;
  ~FieldReader();

  const std::string& path() const;

  /// Whether a dataset (or group) of this path exists.
  bool has_dataset(const std::string& name) const;
  /// Paths of all datasets in the file, sorted ("velocity", "populations/f", ...).
  std::vector<std::string> datasets() const;
  /// Shape of a dataset, C order (z slowest).
  std::vector<index_t> shape(const std::string& name) const;
  /// Bytes per stored value (8 for double, 4 for float).
  int value_bytes(const std::string& name) const;

  /// Whether a dataset stores integers (any width, either sign) or booleans (h5py's numpy bool,
  /// an HDF5 enum over int8).
  bool is_integer(const std::string& name) const;

  /// The whole dataset. T: double, float, std::int32_t, std::int64_t, std::uint64_t.
  template <class T>
  Array<T> read(const std::string& name) const;
  /// An integer or boolean dataset (is_integer) as one byte per value, 1 where the stored value is
  /// nonzero, 0 elsewhere: flags and masks of any integer type, with no conversion that could turn
  /// a nonzero value into 0 (a negative or wide value read as uint8 would saturate).
  Array<std::uint8_t> read_nonzero(const std::string& name) const;
  /// This rank's box of a distributed dataset, laid out as Block describes (x fastest, components
  /// adjacent); the dataset's shape must be `block.file_shape(ncomp)`.
  template <class T>
  std::vector<T> read_block(const std::string& name, const Block& block, int ncomp) const;

  /// Attributes of `object`: "/" (root group, the default) or a dataset path.
  bool has_attribute(const std::string& name, const std::string& object = "/") const;
  std::string attribute_string(const std::string& name, const std::string& object = "/") const;
  double attribute_double(const std::string& name, const std::string& object = "/") const;
  long attribute_long(const std::string& name, const std::string& object = "/") const;
  std::uint64_t attribute_u64(const std::string& name, const std::string& object = "/") const;
  std::vector<double> attribute_doubles(const std::string& name, const std::string& object = "/") const;
  std::vector<long> attribute_longs(const std::string& name, const std::string& object = "/") const;

  /// Recompute a dataset's checksum over the whole dataset (read in slabs) and compare it with its
  /// `checksum` attribute. InputError when the dataset carries no checksum or an unknown scheme.
  bool verify_checksum(const std::string& name) const;
  /// The same, collectively: each rank reads and sums only its box (the boxes tiling the grid).
  bool verify_checksum(const std::string& name, const Block& block, int ncomp,
                       const parallel::Comm& comm) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace eddy::io
