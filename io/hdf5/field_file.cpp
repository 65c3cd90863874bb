#include "io/hdf5/field_file.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "io/hdf5/agree.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/h5_detail.hpp"

namespace eddy::io {

namespace fs = std::filesystem;

bool hdf5_is_parallel() {
#ifdef EDDY_HDF5_PARALLEL
  return true;
#else
  return false;
#endif
}

WriteMode resolve_write_mode(WriteMode mode, int ranks) {
  if (mode != WriteMode::automatic) return mode;
  if (hdf5_is_parallel()) return WriteMode::collective;
  return ranks > 1 ? WriteMode::per_rank : WriteMode::gather;
}

const char* to_string(WriteMode mode) {
  switch (mode) {
    case WriteMode::automatic:
      return "auto";
    case WriteMode::collective:
      return "collective";
    case WriteMode::gather:
      return "gather";
    case WriteMode::per_rank:
      return "per_rank";
  }
  return "?";
}

WriteMode parse_write_mode(const std::string& name) {
  for (WriteMode m : {WriteMode::automatic, WriteMode::collective, WriteMode::gather, WriteMode::per_rank})
    if (name == to_string(m)) return m;
  throw InputError("output.writer: '" + name + "' is not one of auto, collective, gather, per_rank");
}

std::string per_rank_dir(const std::string& path) {
  const std::string ext = ".h5";
  const bool h5 = path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  return (h5 ? path.substr(0, path.size() - ext.size()) : path) + ".ranks";
}

void remove_field_file(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  fs::remove_all(per_rank_dir(path), ec);
}

namespace {

/// This rank's file in the per_rank directory: "000003.h5".
std::string rank_file_name(int rank) {
  char b[32];
  std::snprintf(b, sizeof b, "%06d.h5", rank);
  return b;
}

/// fsync a file or directory by name; false (errno set) when it cannot be opened or synced.
bool sync_path(const std::string& p) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

}  // namespace

struct FieldFile::State {
  parallel::Comm comm;
  int rank = 0;
  Block block;
  std::string path;
  std::string tmp;
  WriteMode mode = WriteMode::gather;
  bool collective = false;
  bool created = false;  // this rank created the .tmp (rank 0 removes it unless committed)
  bool committed = false;
  h5::Id file;  // open on every rank (collective) or on rank 0 only (gather, per_rank)
  std::vector<DatasetInfo> fields;
  std::uint64_t bytes = 0;  // dataset bytes written so far
  // per_rank: this rank's own file, in `dir_tmp` until commit() renames the directory to `dir`.
  std::string dir, dir_tmp, part_tmp;
  h5::Id part;
  std::uint64_t part_bytes = 0;  // dataset bytes in this rank's own file
  bool part_created = false;     // this rank created part_tmp
  bool dir_created = false;      // rank 0 created dir_tmp
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  WriteStats stats;

  /// Does this rank hold `file` (the master file in per_rank mode) open?
  bool writer() const { return collective || rank == 0; }
  bool per_rank() const { return mode == WriteMode::per_rank; }

  ~State() {
    if (!committed) discard();
  }

  /// Close and remove a file that will not be committed. Collective in collective and per_rank
  /// mode (every rank destroys its FieldFile together). Closing flushes HDF5's metadata; when that
  /// fails (full disk), HDF5 1.10 cannot close the file any more and crashes at exit. So the file is
  /// first truncated to nothing, which frees its blocks for the metadata, and flushed once more,
  /// which also resets the metadata cache after an earlier failed flush; only then closed.
  void discard() {
    close_discarded(part);
    close_discarded(file);
    if (part_created) {
      std::error_code ec;
      fs::remove(part_tmp, ec);
      part_created = false;
    }
    // Every rank has closed and removed its own file before rank 0 removes the directory.
    if (per_rank()) MPI_Barrier(comm.native());
    if (rank == 0 && created) {
      std::error_code ec;
      fs::remove(tmp, ec);
      created = false;  // never remove a later file of the same name
    }
    if (rank == 0 && dir_created) {
      std::error_code ec;
      fs::remove_all(dir_tmp, ec);
      dir_created = false;
    }
  }

  static void close_discarded(h5::Id& f) {
    if (!f.valid()) return;
    truncate_to_zero(f.get());
    H5Fflush(f.get(), H5F_SCOPE_GLOBAL);
    f.close();
    h5::error_detail();
  }

  static void truncate_to_zero(hid_t file) {
    h5::Id fapl = h5::plist(H5Fget_access_plist(file));
    void* handle = nullptr;
    if (!fapl.valid() || H5Fget_vfd_handle(file, fapl.get(), &handle) < 0 || !handle) return;
    const hid_t driver = H5Pget_driver(fapl.get());
#ifdef EDDY_HDF5_PARALLEL
    if (driver == H5FD_MPIO) {
      MPI_File_set_size(*static_cast<MPI_File*>(handle), 0);
      return;
    }
#endif
    if (driver == H5FD_SEC2 && ::ftruncate(*static_cast<int*>(handle), 0) != 0) h5::error_detail();
  }
};

namespace {

constexpr int kTagMeta = 0x4844;  // 'HD': point-to-point traffic of the gather path
constexpr int kTagData = 0x4845;
constexpr size_t kMaxMessage = size_t(1) << 30;  // MPI counts are int: send large blocks in pieces

using h5::with_detail;

/// Why a file cannot be created in its directory, in words; "" when nothing obvious is wrong.
std::string creation_problem(const std::string& file) {
  fs::path dir = fs::path(file).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec)) return "directory '" + dir.string() + "' does not exist";
  if (!fs::is_directory(dir, ec)) return "'" + dir.string() + "' is not a directory";
  if (access(dir.c_str(), W_OK) != 0) return "directory '" + dir.string() + "' is not writable";
  return {};
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

/// Why `more` bytes of data cannot be added to a file that holds `have`; "" when they fit.
/// Checked before HDF5 writes, because an HDF5 file whose writes failed can be left in a state that
/// HDF5 cannot close (with a file-size limit, the close fails and a later H5close crashes).
std::string space_problem(const std::string& file, std::uint64_t have, std::uint64_t more) {
  constexpr std::uint64_t metadata_allowance = 1 << 20;  // generous: eddy's metadata is a few KiB
  rlimit lim{};
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      have + more + metadata_allowance > static_cast<std::uint64_t>(lim.rlim_cur))
    return "the file would exceed the file-size limit (ulimit -f) of " + mib(lim.rlim_cur);
  fs::path dir = fs::path(file).parent_path();
  struct statvfs v {};
  if (statvfs(dir.empty() ? "." : dir.c_str(), &v) == 0) {
    const std::uint64_t avail = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
    if (more + metadata_allowance > avail)
      return "not enough disk space: " + mib(more) + " needed, " + mib(avail) + " free";
  }
  return {};
}

h5::Id make_fapl(const parallel::Comm& comm, bool collective) {
  h5::Id fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
  // STRONG: closing the file closes anything still open in it, so close() really ends the file.
  bool ok = fapl.valid() && H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) >= 0;
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  // Lock where the file system supports it; do not fail where it does not (some Lustre/NFS mounts).
  ok = ok && H5Pset_file_locking(fapl.get(), true, true) >= 0;
#endif
#ifdef EDDY_HDF5_PARALLEL
  if (collective) {
    ok = ok && H5Pset_fapl_mpio(fapl.get(), comm.native(), MPI_INFO_NULL) >= 0;
    // Metadata reads/writes as collective operations: one rank touches the file system, not all.
    ok = ok && H5Pset_all_coll_metadata_ops(fapl.get(), true) >= 0;
    ok = ok && H5Pset_coll_metadata_write(fapl.get(), true) >= 0;
  }
#else
  (void)comm;
  (void)collective;
#endif
  return ok ? std::move(fapl) : h5::Id();
}

/// Collective: dims, grid and component count equal on every rank, and the boxes tile the grid.
void check_same_grid(const parallel::Comm& comm, const Block& b, int ncomp, const std::string& what) {
  long v[10] = {b.dims, b.global[0], b.global[1], b.global[2], ncomp};
  for (int i = 0; i < 5; ++i) v[5 + i] = -v[i];
  long r[10];
  MPI_Allreduce(v, r, 10, MPI_LONG, MPI_MAX, comm.native());
  bool same = true;
  for (int i = 0; i < 5; ++i) same = same && r[i] == -r[5 + i];
  throw_if_any_failed(comm, same,
                      what + ": ranks disagree on the grid (dims, cells per direction or components)");
  const long cells = comm.sum(static_cast<long>(b.local_cells()));
  throw_if_any_failed(comm, cells == static_cast<long>(b.global_cells()),
                      what + ": the ranks' boxes hold " + std::to_string(cells) + " cells, the grid has " +
                          std::to_string(b.global_cells()) + " (boxes must tile the grid)");
}

h5::Id create_dataset(hid_t file, const std::string& name, hid_t file_type,
                      const std::vector<index_t>& shape) {
  const std::vector<hsize_t> dims = h5::dims_of(shape);
  h5::Id space = h5::space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Id lcpl = h5::plist(H5Pcreate(H5P_LINK_CREATE));
  h5::Id dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
  if (!space.valid() || !lcpl.valid() || !dcpl.valid()) return h5::Id();
  // Groups in the name ("populations/f") are created; every value is written, so skip fill values.
  if (H5Pset_create_intermediate_group(lcpl.get(), 1) < 0) return h5::Id();
  if (H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) < 0) return h5::Id();
  return h5::dataset(
      H5Dcreate2(file, name.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
}

/// A name as H5Pset_virtual reads it, where '%' starts a substitution: "%%" is a literal '%'.
std::string vds_literal(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '%') out += '%';
    out += c;
  }
  return out;
}

/// A virtual dataset of `shape` in `file` mapping each non-empty box of `boxes` (rank r's) onto
/// dataset `name` of `<dir>/<r:06d>.h5`, `dir` relative to the directory of `file`.
h5::Id create_virtual_dataset(hid_t file, const std::string& name, hid_t file_type,
                              const std::vector<index_t>& shape, const std::vector<Block>& boxes, int ncomp,
                              const std::string& dir) {
  const std::vector<hsize_t> dims = h5::dims_of(shape);
  h5::Id vspace = h5::space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Id lcpl = h5::plist(H5Pcreate(H5P_LINK_CREATE));
  h5::Id dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
  if (!vspace.valid() || !lcpl.valid() || !dcpl.valid()) return h5::Id();
  if (H5Pset_create_intermediate_group(lcpl.get(), 1) < 0) return h5::Id();
  const std::string source = vds_literal(name);
  for (size_t r = 0; r < boxes.size(); ++r) {
    const Block& b = boxes[r];
    if (b.local_cells() <= 0) continue;
    std::vector<hsize_t> start = h5::dims_of(b.file_start());
    if (ncomp > 0) start.push_back(0);
    const std::vector<hsize_t> count = h5::dims_of(b.file_count(ncomp));
    h5::Id src = h5::space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
    if (!src.valid() ||
        H5Sselect_hyperslab(vspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
      return h5::Id();
    const std::string part = vds_literal(dir + "/" + rank_file_name(static_cast<int>(r)));
    if (H5Pset_virtual(dcpl.get(), vspace.get(), part.c_str(), source.c_str(), src.get()) < 0)
      return h5::Id();
  }
  if (H5Sselect_all(vspace.get()) < 0) return h5::Id();
  return h5::dataset(
      H5Dcreate2(file, name.c_str(), file_type, vspace.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
}

h5::Id transfer_plist(bool collective) {
#ifdef EDDY_HDF5_PARALLEL
  if (collective) {
    h5::Id dxpl = h5::plist(H5Pcreate(H5P_DATASET_XFER));
    if (!dxpl.valid() || H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) < 0) return h5::Id();
    return dxpl;
  }
#else
  (void)collective;
#endif
  return h5::Id(H5P_DEFAULT, nullptr);
}

/// One contiguous piece of a rank's box: planes [z0, z0 + nz) of the box (its slowest axis) and, of
/// those, rows [y0, y0 + ny); `at` = its first value in the local array.
struct Piece {
  hsize_t z0, nz, y0, ny, at;
};

/// The box cut into pieces of at most `max_bytes` (whole planes, or rows of one plane when a plane
/// is larger; a row is never cut): in C order the local array is (planes, rows, row), so each piece is
/// one hyperslab and one contiguous range of memory.
std::vector<Piece> pieces_of(const Block& b, int ncomp, size_t value_bytes, size_t max_bytes) {
  std::vector<Piece> out;
  if (b.local_cells() <= 0) return out;
  const std::vector<index_t> count = b.file_count(ncomp);
  // Axis 0 is the slowest (z in 3D); 1D boxes have a single "plane".
  const hsize_t planes = count.size() >= 2 ? static_cast<hsize_t>(count[0]) : 1;
  const hsize_t rows = count.size() >= 3 ? static_cast<hsize_t>(count[1]) : 1;
  hsize_t total = 1;
  for (index_t n : count) total *= static_cast<hsize_t>(n);
  const hsize_t plane = total / planes, row = plane / rows;
  const hsize_t max_values = std::max<hsize_t>(1, max_bytes / value_bytes);
  if (plane <= max_values) {
    const hsize_t per = std::max<hsize_t>(1, max_values / plane);
    for (hsize_t z = 0; z < planes; z += per)
      out.push_back({z, std::min(per, planes - z), 0, rows, z * plane});
  } else {
    const hsize_t per = std::max<hsize_t>(1, max_values / row);
    for (hsize_t z = 0; z < planes; ++z)
      for (hsize_t y = 0; y < rows; y += per)
        out.push_back({z, 1, y, std::min(per, rows - y), z * plane + y * row});
  }
  return out;
}

/// Select `p` of box `b` in `fspace` (a dataset of b.file_shape(ncomp)) and return its memory space.
h5::Id select_piece(hid_t fspace, const Block& b, int ncomp, const Piece& p) {
  std::vector<hsize_t> start = h5::dims_of(b.file_start());
  if (ncomp > 0) start.push_back(0);
  std::vector<hsize_t> count = h5::dims_of(b.file_count(ncomp));
  hsize_t values = 1;
  if (count.size() >= 2) start[0] += p.z0, count[0] = p.nz;
  if (count.size() >= 3) start[1] += p.y0, count[1] = p.ny;
  for (hsize_t n : count) values *= n;
  if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
    return h5::Id();
  return h5::space(H5Screate_simple(1, &values, nullptr));
}

/// Box writes go down in pieces of at most this many bytes: MPI-IO counts are int, and collective
/// MPI-IO writes of more than 2 GiB from one rank fail or corrupt data with some MPI libraries.
constexpr size_t kMaxWrite = size_t(1) << 30;

/// Write one box (possibly empty: then this rank takes part with empty selections) in pieces. In a
/// collective transfer every rank makes the same number of H5Dwrite calls (the most any rank needs),
/// with empty selections once its own pieces are done; so this is collective there.
template <class T>
bool write_box(hid_t dset, const T* data, const Block& b, int ncomp, hid_t dxpl, const parallel::Comm* comm) {
  h5::Id fspace = h5::space(H5Dget_space(dset));
  if (!fspace.valid()) return false;
  const std::vector<Piece> mine = pieces_of(b, ncomp, sizeof(T), kMaxWrite);
  const long calls = comm ? comm->max(static_cast<long>(mine.size())) : static_cast<long>(mine.size());
  static const T dummy{};
  bool ok = true;
  for (long k = 0; k < calls; ++k) {
    h5::Id mspace;
    const T* from = &dummy;
    if (static_cast<size_t>(k) < mine.size()) {
      if (ok) mspace = select_piece(fspace.get(), b, ncomp, mine[static_cast<size_t>(k)]);
      from = data ? data + mine[static_cast<size_t>(k)].at : &dummy;
    }
    if (!mspace.valid()) {  // nothing (left) on this rank, or a failed selection: an empty one
      const hsize_t one = 1;
      mspace = h5::space(H5Screate_simple(1, &one, nullptr));
      if (!mspace.valid() || H5Sselect_none(mspace.get()) < 0 || H5Sselect_none(fspace.get()) < 0) {
        ok = false;
        if (!comm) return false;
        continue;  // a collective write needs every rank's call, so keep going with the rest
      }
      if (static_cast<size_t>(k) < mine.size()) ok = false;
      from = &dummy;
    }
    if (H5Dwrite(dset, h5::TypeOf<T>::mem(), mspace.get(), fspace.get(), dxpl, from) < 0) ok = false;
    if (!ok && !comm) return false;
  }
  return ok;
}

void send_bytes(const void* p, size_t n, int to, MPI_Comm c) {
  const char* b = static_cast<const char*>(p);
  for (size_t off = 0; off < n; off += kMaxMessage)
    MPI_Send(b + off, static_cast<int>(std::min(kMaxMessage, n - off)), MPI_BYTE, to, kTagData, c);
}

void recv_bytes(void* p, size_t n, int from, MPI_Comm c) {
  char* b = static_cast<char*>(p);
  for (size_t off = 0; off < n; off += kMaxMessage)
    MPI_Recv(b + off, static_cast<int>(std::min(kMaxMessage, n - off)), MPI_BYTE, from, kTagData, c,
             MPI_STATUS_IGNORE);
}

}  // namespace

// ------------------------------------------------------------------------------------------ lifetime

FieldFile::FieldFile(std::unique_ptr<State> s) : s_(std::move(s)) {}
FieldFile::FieldFile(FieldFile&&) noexcept = default;
FieldFile& FieldFile::operator=(FieldFile&&) noexcept = default;
FieldFile::~FieldFile() = default;

FieldFile FieldFile::create(const std::string& path, const Block& block, const parallel::Comm& comm,
                            WriteMode mode) {
  const auto started = std::chrono::steady_clock::now();
  h5::silence_errors();
  const std::string where = "HDF5 file '" + path + "'";
  if (mode == WriteMode::collective && !hdf5_is_parallel())
    throw Error("cannot write " + where +
                " collectively: this build's HDF5 is serial (use the gather or per_rank mode)");
  auto s = std::make_unique<State>();
  s->started = started;
  s->comm = comm;
  s->rank = comm.rank();
  s->block = block;
  s->path = path;
  s->tmp = path + ".tmp";
  s->mode = resolve_write_mode(mode, comm.size());
  s->collective = s->mode == WriteMode::collective;
  if (s->per_rank()) {
    s->dir = per_rank_dir(path);
    s->dir_tmp = s->dir + ".tmp";
    s->part_tmp = (fs::path(s->dir_tmp) / rank_file_name(s->rank)).string();
  }

  const std::string bad = block.check();
  throw_if_any_failed(comm, bad.empty(), "cannot create " + where + ": " + bad);
  check_same_grid(comm, block, 0, "cannot create " + where);

  bool ok = true;
  std::string why;
  // The temporary is a new file of this run's own: whatever has its name goes first (a crashed run's
  // file, or a symbolic link, which is removed, never followed), and it is created exclusively.
  if (s->rank == 0) ::unlink(s->tmp.c_str());
  if (s->collective) comm.barrier();
  if (s->writer()) {
    h5::Id fapl = make_fapl(comm, s->collective);
    if (fapl.valid()) s->file = h5::file(H5Fcreate(s->tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
    ok = s->file.valid();
    if (!ok) {
      const std::string problem = creation_problem(s->tmp);
      why = with_detail(problem.empty() ? "cannot create '" + s->tmp + "'" : problem);
    }
    s->created = ok && s->rank == 0;
    if (ok && s->per_rank() && s->rank == 0) {
      // A directory left by a crashed run goes first; nothing of it is under a final name.
      std::error_code ec;
      fs::remove_all(s->dir_tmp, ec);
      ok = fs::create_directory(s->dir_tmp, ec);
      if (!ok) why = "cannot create directory '" + s->dir_tmp + "': " + ec.message();
      s->dir_created = ok;
    }
  }
  throw_if_any_failed(comm, ok, "cannot create " + where + ": " + why);
  if (s->per_rank()) {
    // Every rank's own file, opened by this rank alone through the serial driver (also when the
    // library is a parallel build).
    h5::Id fapl = make_fapl(comm, false);
    if (fapl.valid())
      s->part = h5::file(H5Fcreate(s->part_tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
    ok = s->part.valid();
    s->part_created = ok;
    if (!ok) why = with_detail("cannot create '" + s->part_tmp + "'");
    throw_if_any_failed(comm, ok, "cannot create " + where + ": " + why);
  }
  return FieldFile(std::move(s));
}

const std::string& FieldFile::path() const { return s_->path; }
std::string FieldFile::temp_path() const { return s_->tmp; }
const Block& FieldFile::block() const { return s_->block; }
bool FieldFile::collective() const { return s_->collective; }
WriteMode FieldFile::mode() const { return s_->mode; }
const WriteStats& FieldFile::stats() const { return s_->stats; }
bool FieldFile::committed() const { return s_ && s_->committed; }
const std::vector<DatasetInfo>& FieldFile::fields() const { return s_->fields; }

void FieldFile::require_open(const char* what) const {
  if (!s_) throw Error(std::string("FieldFile::") + what + " on a moved-from file");
  if (s_->committed) throw Error(std::string("FieldFile::") + what + " after commit() of '" + s_->path + "'");
}

void FieldFile::commit() {
  require_open("commit");
  State& s = *s_;
  bool ok = true;
  std::string why;
  // Flush first: a failed flush leaves the file open and closable (discard() then frees its blocks),
  // whereas a failed close cannot be recovered from.
  if (s.per_rank() && H5Fflush(s.part.get(), H5F_SCOPE_GLOBAL) < 0) {
    ok = false;
    why = with_detail("writing the metadata of '" + s.part_tmp + "' failed");
  }
  if (ok && s.writer() && H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL) < 0) {
    ok = false;
    why = with_detail("writing the file's metadata failed");
  }
  if (s.comm.any(!ok)) {
    s.discard();
    throw_if_any_failed(s.comm, ok, "cannot finish HDF5 file '" + s.path + "': " + why);
  }
  if (s.per_rank() && !s.part.close()) {
    ok = false;
    why = with_detail("closing '" + s.part_tmp + "' failed");
  }
  if (s.writer() && !s.file.close() && ok) {
    ok = false;
    why = with_detail("closing the file failed");
  }
  // per_rank: each rank makes its own file durable before rank 0 renames the directory.
  if (ok && s.per_rank() && !sync_path(s.part_tmp)) {
    ok = false;
    why = "cannot sync '" + s.part_tmp + "': " + std::strerror(errno);
  }
  throw_if_any_failed(s.comm, ok, "cannot finish HDF5 file '" + s.path + "': " + why);

  // Every rank has closed its files (the allreduce above orders it): now rank 0 makes them durable
  // and gives them their final names, each in one atomic rename: the rank files' directory first,
  // the file that maps them last.
  if (s.rank == 0) {
    const fs::path parent = fs::path(s.path).parent_path();
    const std::string parent_dir = parent.empty() ? "." : parent.string();
    if (s.per_rank()) {
      sync_path(s.dir_tmp);  // best effort: persist the directory's entries
      std::error_code ec;
      fs::remove_all(s.dir, ec);  // an earlier file's, about to be replaced together with <path>
      if (std::rename(s.dir_tmp.c_str(), s.dir.c_str()) != 0) {
        ok = false;
        why = "cannot rename '" + s.dir_tmp + "' to '" + s.dir + "': " + std::strerror(errno);
      } else {
        s.dir_created = false;
      }
    }
    if (ok && !sync_path(s.tmp)) {
      ok = false;
      why = "cannot sync '" + s.tmp + "': " + std::strerror(errno);
    }
    if (ok && std::rename(s.tmp.c_str(), s.path.c_str()) != 0) {
      ok = false;
      why = "cannot rename '" + s.tmp + "' to '" + s.path + "': " + std::strerror(errno);
    }
    if (ok) {
      sync_path(parent_dir);  // best effort: persist the rename itself
      // A file written before under this name by the per_rank path leaves no stale directory.
      std::error_code ec;
      if (!s.per_rank() && fs::exists(per_rank_dir(s.path), ec)) fs::remove_all(per_rank_dir(s.path), ec);
    } else if (s.per_rank() && !s.dir_created) {
      std::error_code ec;
      fs::remove_all(s.dir, ec);  // renamed already: nothing of an uncommitted file stays
    }
  }
  throw_if_any_failed(s.comm, ok, "cannot finish HDF5 file '" + s.path + "': " + why);
  s.committed = true;
  s.stats.bytes = s.bytes;
  s.stats.mode = s.mode;
  s.stats.seconds =
      s.comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count());
}

// -------------------------------------------------------------------------------------------- writes

template <class T>
void FieldFile::write_scalar(const std::string& name, const T* local, Checksum checksum) {
  require_open("write_scalar");
  write_array(name, local, s_->block, 0, checksum);
}

template <class T>
void FieldFile::write_vector(const std::string& name, const T* local, int ncomp, Checksum checksum) {
  require_open("write_vector");
  if (ncomp < 1)
    throw Error("cannot write vector '" + name + "' with " + std::to_string(ncomp) + " components");
  write_array(name, local, s_->block, ncomp, checksum);
}

template <class T>
void FieldFile::write_vector(const std::string& name, const std::vector<const T*>& components,
                             Checksum checksum) {
  require_open("write_vector");
  const size_t nc = components.size();
  const auto n = static_cast<size_t>(s_->block.local_cells());
  std::vector<T> packed(n * nc);
  bool complete = true;
  for (size_t c = 0; c < nc; ++c) {
    complete = complete && components[c] != nullptr;
    if (components[c])
      for (size_t i = 0; i < n; ++i) packed[i * nc + c] = components[c][i];
  }
  // A missing component goes down as a null pointer, so that write_array reports it on every rank.
  write_vector(name, complete ? packed.data() : nullptr, static_cast<int>(nc), checksum);
}

template <class T>
void FieldFile::write_array(const std::string& name, const T* local, const Block& blk, int ncomp,
                            Checksum checksum) {
  require_open("write_array");
  State& s = *s_;
  const std::string where = "dataset '" + name + "' in HDF5 file '" + s.path + "'";
  std::string bad = blk.check();
  if (bad.empty() && ncomp < 0) bad = "negative component count";
  if (bad.empty() && !local && blk.local_cells() > 0) bad = "no data (null pointer) for a non-empty box";
  if (bad.empty() && name.empty()) bad = "empty dataset name";
  const std::uint64_t bytes = static_cast<std::uint64_t>(blk.global_cells()) *
                              static_cast<std::uint64_t>(std::max(ncomp, 1)) * sizeof(T);
  if (bad.empty() && s.per_rank()) {
    const std::uint64_t own = static_cast<std::uint64_t>(blk.local_cells()) *
                              static_cast<std::uint64_t>(std::max(ncomp, 1)) * sizeof(T);
    bad = space_problem(s.part_tmp, s.part_bytes, own);
    if (bad.empty()) s.part_bytes += own;
  } else if (bad.empty() && s.rank == 0) {
    bad = space_problem(s.tmp, s.bytes, bytes);
  }
  throw_if_any_failed(s.comm, bad.empty(), "cannot write " + where + ": " + bad);
  check_same_grid(s.comm, blk, ncomp, "cannot write " + where);

  const std::vector<index_t> shape = blk.file_shape(ncomp);
  bool ok = true;
  std::string why;
  if (s.collective) {
    h5::Id dset = create_dataset(s.file.get(), name, h5::TypeOf<T>::file(), shape);
    ok = dset.valid();
    if (!ok) why = with_detail("cannot create it");
    throw_if_any_failed(s.comm, ok, "cannot write " + where + ": " + why);
    h5::Id dxpl = transfer_plist(true);
    ok = dxpl.valid() && write_box(dset.get(), local, blk, ncomp, dxpl.get(), &s.comm);
    if (!ok) why = with_detail("writing the data failed");
  } else if (s.per_rank()) {
    // Every rank writes its box as a dataset of its own file; rank 0 maps them all in <path>.
    h5::Id dset = create_dataset(s.part.get(), name, h5::TypeOf<T>::file(), blk.file_count(ncomp));
    ok = dset.valid();
    if (!ok) why = with_detail("cannot create it in '" + s.part_tmp + "'");
    Block own = blk;  // the box as the whole of this rank's dataset
    own.global = blk.extent;
    own.offset = {0, 0, 0};
    if (ok && !write_box(dset.get(), local, own, ncomp, H5P_DEFAULT, nullptr)) {
      ok = false;
      why = with_detail("writing the data to '" + s.part_tmp + "' failed");
    }
    long long mine[6] = {blk.offset[0], blk.offset[1], blk.offset[2],
                         blk.extent[0], blk.extent[1], blk.extent[2]};
    std::vector<long long> boxes(s.rank == 0 ? 6 * static_cast<size_t>(s.comm.size()) : 0);
    MPI_Gather(mine, 6, MPI_LONG_LONG, boxes.data(), 6, MPI_LONG_LONG, 0, s.comm.native());
    if (ok && s.rank == 0) {
      std::vector<Block> all(static_cast<size_t>(s.comm.size()), blk);
      for (size_t r = 0; r < all.size(); ++r) {
        all[r].offset = {boxes[6 * r], boxes[6 * r + 1], boxes[6 * r + 2]};
        all[r].extent = {boxes[6 * r + 3], boxes[6 * r + 4], boxes[6 * r + 5]};
      }
      h5::Id vds = create_virtual_dataset(s.file.get(), name, h5::TypeOf<T>::file(), shape, all, ncomp,
                                          fs::path(s.dir).filename().string());
      ok = vds.valid();
      if (!ok) why = with_detail("cannot create it as a virtual dataset");
    }
  } else {
    // Gather path: rank 0 writes its own box, then receives and writes every other rank's box in
    // rank order, holding one box at a time. It keeps receiving after a failure so no sender blocks.
    const MPI_Comm c = s.comm.native();
    if (s.rank == 0) {
      h5::Id dset = create_dataset(s.file.get(), name, h5::TypeOf<T>::file(), shape);
      ok = dset.valid();
      if (!ok) why = with_detail("cannot create it");
      if (ok && !write_box(dset.get(), local, blk, ncomp, H5P_DEFAULT, nullptr)) {
        ok = false;
        why = with_detail("writing the data failed");
      }
      std::vector<T> buf;
      for (int r = 1; r < s.comm.size(); ++r) {
        long long meta[6];
        MPI_Recv(meta, 6, MPI_LONG_LONG, r, kTagMeta, c, MPI_STATUS_IGNORE);
        Block rb = blk;
        rb.offset = {meta[0], meta[1], meta[2]};
        rb.extent = {meta[3], meta[4], meta[5]};
        const auto count = static_cast<size_t>(rb.local_cells()) * static_cast<size_t>(std::max(ncomp, 1));
        buf.resize(count);
        recv_bytes(buf.data(), count * sizeof(T), r, c);
        if (ok && count > 0 && !write_box(dset.get(), buf.data(), rb, ncomp, H5P_DEFAULT, nullptr)) {
          ok = false;
          why = with_detail("writing the data of rank " + std::to_string(r) + " failed");
        }
      }
    } else {
      long long meta[6] = {blk.offset[0], blk.offset[1], blk.offset[2],
                           blk.extent[0], blk.extent[1], blk.extent[2]};
      MPI_Send(meta, 6, MPI_LONG_LONG, 0, kTagMeta, c);
      const auto count = static_cast<size_t>(blk.local_cells()) * static_cast<size_t>(std::max(ncomp, 1));
      send_bytes(local, count * sizeof(T), 0, c);
    }
  }
  throw_if_any_failed(s.comm, ok, "cannot write " + where + ": " + why);
  s.bytes += bytes;

  if (checksum == Checksum::on) {
    const std::uint64_t partial = block_checksum(local, blk, ncomp);
    std::uint64_t total = 0;
    MPI_Allreduce(&partial, &total, 1, MPI_UINT64_T, MPI_SUM, s.comm.native());  // wraps mod 2^64
    attr_u64(name, "checksum", &total, 1, true);
    attr_string(name, "checksum_scheme", checksum_scheme);
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (blk.dims == s.block.dims && blk.global == s.block.global) {
      s.fields.erase(std::remove_if(s.fields.begin(), s.fields.end(),
                                    [&](const DatasetInfo& f) { return f.name == name; }),
                     s.fields.end());
      s.fields.push_back({name, ncomp, static_cast<int>(sizeof(T))});
    }
  }
}

template <class T>
void FieldFile::write_global(const std::string& name, const T* data, const std::vector<index_t>& shape,
                             Checksum checksum) {
  require_open("write_global");
  State& s = *s_;
  const std::string where = "dataset '" + name + "' in HDF5 file '" + s.path + "'";
  index_t count = shape.empty() ? 0 : 1;
  for (index_t n : shape) count *= n;
  std::string bad;
  if (shape.empty() || *std::min_element(shape.begin(), shape.end()) < 0) bad = "invalid shape";
  if (bad.empty() && count > 0 && !data) bad = "no data (null pointer)";
  const std::uint64_t bytes = static_cast<std::uint64_t>(std::max<index_t>(count, 0)) * sizeof(T);
  if (bad.empty() && s.rank == 0) bad = space_problem(s.tmp, s.bytes, bytes);
  throw_if_any_failed(s.comm, bad.empty(), "cannot write " + where + ": " + bad);

  bool ok = true;
  std::string why;
  if (s.writer()) {
    h5::Id dset = create_dataset(s.file.get(), name, h5::TypeOf<T>::file(), shape);
    ok = dset.valid();
    if (!ok) why = with_detail("cannot create it");
    if (s.collective) throw_if_any_failed(s.comm, ok, "cannot write " + where + ": " + why);
    if (ok && count > 0) {
      // Rank 0 writes everything; in collective mode the other ranks join with empty selections.
      h5::Id dxpl = transfer_plist(s.collective);
      h5::Id fspace = h5::space(H5Dget_space(dset.get()));
      h5::Id mspace = h5::space(H5Scopy(fspace.get()));
      ok = dxpl.valid() && fspace.valid() && mspace.valid();
      if (ok && s.rank != 0) ok = H5Sselect_none(fspace.get()) >= 0 && H5Sselect_none(mspace.get()) >= 0;
      static const T dummy{};
      ok = ok && H5Dwrite(dset.get(), h5::TypeOf<T>::mem(), mspace.get(), fspace.get(), dxpl.get(),
                          s.rank == 0 ? data : &dummy) >= 0;
      if (!ok) why = with_detail("writing the data failed");
    }
  }
  throw_if_any_failed(s.comm, ok, "cannot write " + where + ": " + why);
  s.bytes += bytes;
  if (checksum == Checksum::on) {
    std::uint64_t sum = range_checksum(data, static_cast<std::uint64_t>(count), 0);
    MPI_Bcast(&sum, 1, MPI_UINT64_T, 0, s.comm.native());  // rank 0's copy is the one in the file
    attr_u64(name, "checksum", &sum, 1, true);
    attr_string(name, "checksum_scheme", checksum_scheme);
  }
}

void FieldFile::write_coordinates(const std::vector<double>& x, const std::vector<double>& y,
                                  const std::vector<double>& z) {
  require_open("write_coordinates");
  const Block& b = s_->block;
  const std::vector<double>* axes[3] = {&x, &y, &z};
  for (size_t d = 0; d < 3; ++d) {
    const size_t want = static_cast<int>(d) < b.dims ? static_cast<size_t>(b.global[d]) : 0;
    if (axes[d]->size() != want)
      throw Error("cannot write coordinates to HDF5 file '" + s_->path + "': " + std::string(1, "xyz"[d]) +
                  " has " + std::to_string(axes[d]->size()) + " values, the grid needs " +
                  std::to_string(want));
  }
  const char* names[3] = {"x", "y", "z"};
  for (int d = 0; d < b.dims; ++d) write_global(names[d], *axes[d]);
}

// ---------------------------------------------------------------------------------------- attributes

namespace {

/// Create or replace one attribute; returns "" on success, else why not.
std::string put_attribute(hid_t file, const std::string& object, const std::string& name, hid_t file_type,
                          hid_t mem_type, const void* data, size_t n, bool scalar) {
  h5::Id obj = h5::open_object(file, object);
  if (!obj.valid()) return with_detail("no object '" + object + "' in the file");
  const htri_t exists = H5Aexists(obj.get(), name.c_str());
  if (exists < 0 || (exists > 0 && H5Adelete(obj.get(), name.c_str()) < 0))
    return with_detail("cannot replace the old value");
  const auto len = static_cast<hsize_t>(n);
  h5::Id space = h5::space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &len, nullptr));
  if (!space.valid()) return with_detail("cannot describe its shape");
  h5::Id a = h5::attr(H5Acreate2(obj.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid()) return with_detail("cannot create it");
  static const double dummy = 0;
  if (H5Awrite(a.get(), mem_type, data ? data : &dummy) < 0) return with_detail("cannot write it");
  return {};
}

}  // namespace

void FieldFile::attr_string(const std::string& object, const std::string& name, const std::string& value) {
  require_open("set_attribute");
  State& s = *s_;
  std::string why;
  if (s.writer()) {
    h5::Id t = h5::vlen_string_type();
    const char* p = value.c_str();
    why = t.valid() ? put_attribute(s.file.get(), object, name, t.get(), t.get(), &p, 1, true)
                    : with_detail("no string type");
  }
  throw_if_any_failed(
      s.comm, why.empty(),
      "cannot set attribute '" + name + "' of '" + object + "' in HDF5 file '" + s.path + "': " + why);
}

void FieldFile::attr_doubles(const std::string& object, const std::string& name, const double* v, size_t n,
                             bool scalar) {
  require_open("set_attribute");
  State& s = *s_;
  std::string why;
  if (s.writer())
    why = put_attribute(s.file.get(), object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n, scalar);
  throw_if_any_failed(
      s.comm, why.empty(),
      "cannot set attribute '" + name + "' of '" + object + "' in HDF5 file '" + s.path + "': " + why);
}

void FieldFile::attr_longs(const std::string& object, const std::string& name, const long* v, size_t n,
                           bool scalar) {
  require_open("set_attribute");
  State& s = *s_;
  std::string why;
  if (s.writer())
    why = put_attribute(s.file.get(), object, name, H5T_STD_I64LE, H5T_NATIVE_LONG, v, n, scalar);
  throw_if_any_failed(
      s.comm, why.empty(),
      "cannot set attribute '" + name + "' of '" + object + "' in HDF5 file '" + s.path + "': " + why);
}

void FieldFile::attr_u64(const std::string& object, const std::string& name, const std::uint64_t* v, size_t n,
                         bool scalar) {
  require_open("set_attribute");
  State& s = *s_;
  std::string why;
  if (s.writer())
    why = put_attribute(s.file.get(), object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, v, n, scalar);
  throw_if_any_failed(
      s.comm, why.empty(),
      "cannot set attribute '" + name + "' of '" + object + "' in HDF5 file '" + s.path + "': " + why);
}

// ------------------------------------------------------------------------- explicit instantiations

template void FieldFile::write_scalar(const std::string&, const double*, Checksum);
template void FieldFile::write_scalar(const std::string&, const float*, Checksum);
template void FieldFile::write_scalar(const std::string&, const std::int32_t*, Checksum);
template void FieldFile::write_scalar(const std::string&, const std::int64_t*, Checksum);
template void FieldFile::write_scalar(const std::string&, const std::uint64_t*, Checksum);
template void FieldFile::write_scalar(const std::string&, const std::uint8_t*, Checksum);
template void FieldFile::write_vector(const std::string&, const double*, int, Checksum);
template void FieldFile::write_vector(const std::string&, const float*, int, Checksum);
template void FieldFile::write_vector(const std::string&, const std::vector<const double*>&, Checksum);
template void FieldFile::write_vector(const std::string&, const std::vector<const float*>&, Checksum);
template void FieldFile::write_array(const std::string&, const double*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const float*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const std::int32_t*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const std::int64_t*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const std::uint64_t*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const std::uint16_t*, const Block&, int, Checksum);
template void FieldFile::write_array(const std::string&, const std::uint8_t*, const Block&, int, Checksum);
template void FieldFile::write_global(const std::string&, const double*, const std::vector<index_t>&,
                                      Checksum);
template void FieldFile::write_global(const std::string&, const float*, const std::vector<index_t>&,
                                      Checksum);
template void FieldFile::write_global(const std::string&, const std::int32_t*, const std::vector<index_t>&,
                                      Checksum);
template void FieldFile::write_global(const std::string&, const std::int64_t*, const std::vector<index_t>&,
                                      Checksum);
template void FieldFile::write_global(const std::string&, const std::uint64_t*, const std::vector<index_t>&,
                                      Checksum);

}  // namespace eddy::io
