#pragma once
/// One HDF5 output file (fields or checkpoint) written by all ranks together (src/README.md, Output files).
///
/// The file is created as `<path>.tmp` and renamed to `<path>` by commit() once it is complete and
/// closed, so a crash, a full disk or an exception never leaves a file under its final name; an
/// uncommitted FieldFile removes its .tmp when destroyed.
///
/// Every member function is collective: call it on every rank of the communicator, in the same order,
/// with the same names and attribute values (only the local data differ). On any failure, on any rank,
/// every rank throws the same eddy::Error, naming the file and the rank that failed, so no rank is
/// left waiting in a collective. The destructor of an uncommitted file is collective too (when an
/// Error was thrown, every rank unwinds, so that holds).
///
/// Three write paths give byte-identical datasets (the same names, shapes, types, values, attributes
/// and checksums, as every reader sees them):
///  - collective: parallel HDF5 over MPI-IO, each rank writes its hyperslab (H5FD_MPIO_COLLECTIVE);
///  - gather: rank 0 alone opens the file and receives the other ranks' blocks one at a time over
///    MPI, so its memory holds one block, never the global field; this works with a serial HDF5;
///  - per_rank: every rank writes its own block into its own file, `<stem>.ranks/<rank:06d>.h5`
///    next to `<path>` (per_rank_dir()), through the serial (sec2) driver, with no MPI traffic for
///    the data; rank 0 writes `<path>` itself, in which each distributed dataset is an HDF5 virtual
///    dataset mapping every rank's hyperslab onto its file (by a path relative to `<path>`, so the
///    output directory can be moved). Global datasets and attributes are ordinary ones in `<path>`.
///    The directory is written as `<stem>.ranks.tmp` and renamed before `<path>.tmp` is.
/// WriteMode::automatic resolves as resolve_write_mode() says.
///
/// A single rank's box may exceed 2^31 bytes or elements on every path: the gather path sends it in
/// pieces of at most 2^30 bytes, and every path writes it in pieces of at most 2^30 bytes (whole
/// z-planes, or rows of one plane), so no MPI-IO call sees a count past what an int holds.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {

/// How the ranks' blocks reach the file.
enum class WriteMode {
  automatic,   ///< collective when HDF5 is parallel, else per_rank on several ranks, else gather
  collective,  ///< every rank writes its own hyperslab through MPI-IO (needs parallel HDF5)
  gather,      ///< rank 0 receives each block over MPI and writes it (serial HDF5 suffices)
  per_rank,    ///< every rank writes its own file; `<path>` maps them as virtual datasets
};

/// What WriteMode::automatic becomes on `ranks` ranks: collective when this build's HDF5 is
/// parallel, else per_rank when there is more than one rank, else gather (one plain file).
WriteMode resolve_write_mode(WriteMode mode, int ranks);
/// "auto", "collective", "gather", "per_rank" (the values of the config key output.writer).
const char* to_string(WriteMode mode);
/// The inverse of to_string; eddy::InputError naming output.writer for anything else.
WriteMode parse_write_mode(const std::string& name);
/// The directory of a per_rank file's rank files: `<path>` without a trailing ".h5", plus ".ranks"
/// (fields/run_00000100.h5 -> fields/run_00000100.ranks, holding 000000.h5, 000001.h5, ...).
std::string per_rank_dir(const std::string& path);
/// Remove `<path>` and its per_rank directory, if any (rank 0 of a run calls it; no MPI).
void remove_field_file(const std::string& path);

/// How long a file took from create() to commit() and how much it held.
struct WriteStats {
  std::uint64_t bytes = 0;             ///< bytes of the datasets written (the sum over the ranks' blocks)
  double seconds = 0.0;                ///< wall time from create() to the end of commit(), the slowest rank's
  WriteMode mode = WriteMode::gather;  ///< the path taken (never automatic)
};

/// Whether a dataset gets `checksum` (uint64) and `checksum_scheme` attributes (see checksum.hpp).
enum class Checksum { off, on };

/// True when this build links a parallel HDF5, i.e. WriteMode::collective is available.
bool hdf5_is_parallel();

class FieldFile {
 public:
  /// Create `<path>.tmp` for the grid of `block` (this rank's box of it). Collective.
  static FieldFile create(const std::string& path, const Block& block, const parallel::Comm& comm,
                          WriteMode mode = WriteMode::automatic);

  FieldFile(FieldFile&&) noexcept;
  FieldFile& operator=(FieldFile&&) noexcept;
  FieldFile(const FieldFile&) = delete;
  FieldFile& operator=(const FieldFile&) = delete;
  /// An uncommitted file is closed and its .tmp removed (errors are swallowed here).
  ~FieldFile();

  const std::string& path() const;  ///< the final name, valid after commit()
  std::string temp_path() const;    ///< the name while being written: path() + ".tmp"
  const Block& block() const;       ///< this rank's box, as given to create()
  bool collective() const;          ///< true: MPI-IO path; false: gather or per_rank path
  WriteMode mode() const;           ///< the path taken (automatic resolved)
  bool committed() const;
  /// Bytes and time of the file; the same on every rank; valid after commit().
  const WriteStats& stats() const;

  /// A scalar field over the file's grid: dataset `(nz, ny, nx)` (2D `(ny, nx)`), type of T.
  template <class T>
  void write_scalar(const std::string& name, const T* local, Checksum checksum = Checksum::off);
  /// A vector field with `ncomp` components adjacent per cell: dataset `(nz, ny, nx, ncomp)`.
  template <class T>
  void write_vector(const std::string& name, const T* local, int ncomp, Checksum checksum = Checksum::off);
  /// The same from one array per component (structure-of-arrays storage); interleaves a copy.
  template <class T>
  void write_vector(const std::string& name, const std::vector<const T*>& components,
                    Checksum checksum = Checksum::off);
  /// Any distributed array: `block` gives its grid and this rank's box (need not be the file's grid,
  /// e.g. spectral coefficients), `ncomp` = 0 for no component axis. Dataset names may contain '/'
  /// (groups are created). T: double, float, std::int32_t, std::int64_t, std::uint64_t, std::uint8_t (masks).
  template <class T>
  void write_array(const std::string& name, const T* local, const Block& block, int ncomp,
                   Checksum checksum = Checksum::off);
  /// A small array every rank holds completely (same values everywhere); rank 0's copy is written.
  template <class T>
  void write_global(const std::string& name, const T* data, const std::vector<index_t>& shape,
                    Checksum checksum = Checksum::off);
  template <class T>
  void write_global(const std::string& name, const std::vector<T>& data, Checksum checksum = Checksum::off) {
    write_global(name, data.data(), {static_cast<index_t>(data.size())}, checksum);
  }
  /// Cell-centre coordinates `x`, `y` (2D, 3D) and `z` (3D), each of the grid's length, complete on
  /// every rank.
  void write_coordinates(const std::vector<double>& x, const std::vector<double>& y,
                         const std::vector<double>& z = {});

  /// Attributes of the root group. Setting a name again replaces the value.
  void set_attribute(const std::string& name, const std::string& value) { attr_string("/", name, value); }
  void set_attribute(const std::string& name, const char* value) { attr_string("/", name, value); }
  void set_attribute(const std::string& name, double value) { attr_doubles("/", name, &value, 1, true); }
  void set_attribute(const std::string& name, const std::vector<double>& v) {
    attr_doubles("/", name, v.data(), v.size(), false);
  }
  void set_attribute(const std::string& name, const std::vector<long>& v) {
    attr_longs("/", name, v.data(), v.size(), false);
  }
  /// Any integer type: signed ones are stored as int64, unsigned ones as uint64.
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  void set_attribute(const std::string& name, I value) {
    attr_integer("/", name, value);
  }

  /// Attributes of a dataset written before (e.g. `units`). Setting a name again replaces the value.
  void set_dataset_attribute(const std::string& dataset, const std::string& name, const std::string& value) {
    attr_string(dataset, name, value);
  }
  void set_dataset_attribute(const std::string& dataset, const std::string& name, const char* value) {
    attr_string(dataset, name, value);
  }
  void set_dataset_attribute(const std::string& dataset, const std::string& name, double value) {
    attr_doubles(dataset, name, &value, 1, true);
  }
  void set_dataset_attribute(const std::string& dataset, const std::string& name,
                             const std::vector<double>& v) {
    attr_doubles(dataset, name, v.data(), v.size(), false);
  }
  void set_dataset_attribute(const std::string& dataset, const std::string& name,
                             const std::vector<long>& v) {
    attr_longs(dataset, name, v.data(), v.size(), false);
  }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  void set_dataset_attribute(const std::string& dataset, const std::string& name, I value) {
    attr_integer(dataset, name, value);
  }

  /// Field-shaped datasets written so far over the file's grid (float/double), for XDMF.
  const std::vector<DatasetInfo>& fields() const;

  /// Close the file and rename `<path>.tmp` to `<path>` (after all ranks have closed it). Collective.
  void commit();

 private:
  struct State;
  explicit FieldFile(std::unique_ptr<State> s);

  template <class I>
  void attr_integer(const std::string& object, const std::string& name, I value) {
    if constexpr (std::is_signed_v<I>) {
      const long v = static_cast<long>(value);
      attr_longs(object, name, &v, 1, true);
    } else {
      const std::uint64_t v = static_cast<std::uint64_t>(value);
      attr_u64(object, name, &v, 1, true);
    }
  }
  void attr_string(const std::string& object, const std::string& name, const std::string& value);
  void attr_doubles(const std::string& object, const std::string& name, const double* v, size_t n,
                    bool scalar);
  void attr_longs(const std::string& object, const std::string& name, const long* v, size_t n, bool scalar);
  void attr_u64(const std::string& object, const std::string& name, const std::uint64_t* v, size_t n,
                bool scalar);
  void require_open(const char* what) const;

  std::unique_ptr<State> s_;
};

}  // namespace eddy::io
