#include "io/hdf5/field_reader.hpp"

#include <mpi.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "core/file_kind.hpp"
#include "io/hdf5/agree.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/h5_detail.hpp"

namespace eddy::io {

namespace fs = std::filesystem;

struct FieldReader::State {
  std::string path;
  h5::Id file;
};

namespace {

using h5::with_detail;

using h5::shape_text;

enum class Kind { u8, f32, f64, u16, i32, i64, u64, other };

Kind kind_of(hid_t dset) {
  h5::Id t = h5::type(H5Dget_type(dset));
  if (!t.valid()) return Kind::other;
  const H5T_class_t cls = H5Tget_class(t.get());
  const size_t size = H5Tget_size(t.get());
  if (cls == H5T_FLOAT) return size == 4 ? Kind::f32 : size == 8 ? Kind::f64 : Kind::other;
  if (cls == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(t.get()) == H5T_SGN_2;
    if (size == 1 && !is_signed) return Kind::u8;
    if (size == 2 && !is_signed) return Kind::u16;
    if (size == 4 && is_signed) return Kind::i32;
    if (size == 8) return is_signed ? Kind::i64 : Kind::u64;
  }
  return Kind::other;
}

/// Call f(T{}) with T the native type matching the dataset's stored type.
template <class F>
bool dispatch(Kind k, F&& f) {
  switch (k) {
    case Kind::u8:
      return f(std::uint8_t{});
    case Kind::f32:
      return f(float{});
    case Kind::f64:
      return f(double{});
    case Kind::u16:
      return f(std::uint16_t{});
    case Kind::i32:
      return f(std::int32_t{});
    case Kind::i64:
      return f(std::int64_t{});
    case Kind::u64:
      return f(std::uint64_t{});
    default:
      return false;
  }
}

std::vector<hsize_t> dims_of_space(hid_t dset) {
  h5::Id space = h5::space(H5Dget_space(dset));
  if (!space.valid()) return {};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> d(static_cast<size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
  return d;
}

/// Read this rank's box (possibly empty) of `dset` into `out`; false on an HDF5 error.
template <class T>
bool read_box(hid_t dset, const Block& b, int ncomp, std::vector<T>& out) {
  out.assign(static_cast<size_t>(b.local_cells()) * static_cast<size_t>(std::max(ncomp, 1)), T{});
  if (out.empty()) return true;
  h5::Id fspace = h5::space(H5Dget_space(dset));
  if (!fspace.valid()) return false;
  std::vector<hsize_t> start = h5::dims_of(b.file_start());
  if (ncomp > 0) start.push_back(0);
  const std::vector<hsize_t> count = h5::dims_of(b.file_count(ncomp));
  if (H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
    return false;
  h5::Id mspace = h5::space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  return mspace.valid() &&
         H5Dread(dset, h5::TypeOf<T>::mem(), mspace.get(), fspace.get(), H5P_DEFAULT, out.data()) >= 0;
}

/// Checksum of a whole dataset, read in slabs of about 8 M values: whole index ranges of its slowest
/// axis, or of its second axis within one index of the first when that alone is larger.
template <class T>
bool whole_checksum(hid_t dset, std::uint64_t& sum) {
  const std::vector<hsize_t> dims = dims_of_space(dset);
  if (dims.empty()) return false;
  constexpr hsize_t slab_values = hsize_t(1) << 23;
  hsize_t row = 1;  // values per index of axis 0
  for (size_t i = 1; i < dims.size(); ++i) row *= dims[i];
  const bool split = dims.size() >= 2 && row > slab_values;
  const hsize_t n1 = split ? dims[1] : 1,
                sub = split ? row / dims[1] : row;  // sub: values per index of axis 1
  const hsize_t per = split ? std::max<hsize_t>(1, slab_values / std::max<hsize_t>(sub, 1))
                            : std::max<hsize_t>(1, slab_values / std::max<hsize_t>(row, 1));
  h5::Id fspace = h5::space(H5Dget_space(dset));
  if (!fspace.valid()) return false;
  std::vector<T> buf;
  sum = 0;
  auto read = [&](const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, std::uint64_t first) {
    hsize_t values = 1;
    for (hsize_t c : count) values *= c;
    if (values == 0) return true;
    buf.resize(values);
    if (H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
      return false;
    h5::Id mspace = h5::space(H5Screate_simple(1, &values, nullptr));
    if (!mspace.valid() ||
        H5Dread(dset, h5::TypeOf<T>::mem(), mspace.get(), fspace.get(), H5P_DEFAULT, buf.data()) < 0)
      return false;
    sum += range_checksum(buf.data(), values, first);
    return true;
  };
  for (hsize_t r0 = 0; r0 < dims[0]; r0 += split ? 1 : per) {
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    start[0] = r0;
    count[0] = split ? 1 : std::min(per, dims[0] - r0);
    if (!split) {
      if (!read(start, count, r0 * row)) return false;
      continue;
    }
    for (hsize_t r1 = 0; r1 < n1; r1 += per) {
      start[1] = r1;
      count[1] = std::min(per, n1 - r1);
      if (!read(start, count, r0 * row + r1 * sub)) return false;
    }
  }
  return true;
}

// H5Lvisit and H5L_info_t are the version-mapped names, so this compiles against HDF5 1.10 to 1.14.
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  h5::Id obj = h5::object(H5Oopen(group, name, H5P_DEFAULT));
  if (obj.valid() && H5Iget_type(obj.get()) == H5I_DATASET)
    static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

}  // namespace

// ------------------------------------------------------------------------------------------ lifetime

FieldReader::FieldReader(const std::string& path) : s_(std::make_unique<State>()) {
  h5::silence_errors();
  s_->path = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("cannot open HDF5 file '" + path + "': no such file");
  if (const std::string why = not_regular_file(path); !why.empty())
    throw InputError("cannot open HDF5 file '" + path + "': " + why);
  h5::Id fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
  if (fapl.valid()) {
    H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
    H5Pset_file_locking(fapl.get(), true, true);
#endif
    s_->file = h5::file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()));
  }
  if (!s_->file.valid())
    throw InputError(with_detail("cannot open HDF5 file '" + path + "' (not an HDF5 file, or unreadable)"));
}

FieldReader::FieldReader(FieldReader&&) noexcept = default;
FieldReader& FieldReader::operator=(FieldReader&&) noexcept = default;
FieldReader::~FieldReader() = default;

const std::string& FieldReader::path() const { return s_->path; }

// -------------------------------------------------------------------------------------------- datasets

namespace {

/// The directory of `file_path`, absolute, with a trailing separator.
std::string directory_of(const std::string& file_path) {
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(file_path), ec).parent_path();
  return (dir / "").string();
}

/// A virtual dataset (a per_rank file) must find the rank files it maps: HDF5 reads a missing source
/// as fill values, silently. Checks the sources of the mappings that meet the box `start`/`count` (in
/// file coordinates; all mappings when `start` is empty), so a rank reading its own box looks at the
/// few files it needs, not at every rank's. "" when all are there (or `d` is not virtual), else which not.
std::string missing_sources(hid_t d, const std::string& dir, const std::vector<hsize_t>& start,
                            const std::vector<hsize_t>& count) {
  h5::Id dcpl = h5::plist(H5Dget_create_plist(d));
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_VIRTUAL) return {};
  size_t n = 0;
  if (H5Pget_virtual_count(dcpl.get(), &n) < 0) return "its mapping cannot be read";
  std::string missing;
  int n_missing = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!start.empty()) {
      h5::Id vspace = h5::space(H5Pget_virtual_vspace(dcpl.get(), i));
      const int rank = vspace.valid() ? H5Sget_simple_extent_ndims(vspace.get()) : -1;
      if (rank != static_cast<int>(start.size())) return "its mapping cannot be read";
      std::vector<hsize_t> lo(start.size()), hi(start.size());
      if (H5Sget_select_bounds(vspace.get(), lo.data(), hi.data()) < 0) return "its mapping cannot be read";
      bool meets = true;
      for (size_t k = 0; k < start.size(); ++k)
        meets = meets && count[k] > 0 && lo[k] < start[k] + count[k] && hi[k] >= start[k];
      if (!meets) continue;
    }
    const ssize_t len = H5Pget_virtual_filename(dcpl.get(), i, nullptr, 0);
    if (len < 0) return "its mapping cannot be read";
    std::string name(static_cast<size_t>(len) + 1, '\0');
    H5Pget_virtual_filename(dcpl.get(), i, name.data(), name.size());
    name.resize(static_cast<size_t>(len));
    if (name == ".") continue;
    const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : fs::path(dir) / name;
    std::error_code ec;
    if (!fs::exists(p, ec) && n_missing++ < 3) missing += (missing.empty() ? "" : ", ") + p.string();
  }
  if (n_missing == 0) return {};
  return std::to_string(n_missing) + " of the rank files it maps are missing (" + missing +
         (n_missing > 3 ? ", ..." : "") + ")";
}

/// InputError when `d` (dataset `name` of `file_path`) is virtual and a rank file that the box
/// `start`/`count` (empty: the whole dataset) reads from is missing.
void require_sources(hid_t d, const std::string& file_path, const std::string& name,
                     const std::vector<hsize_t>& start = {}, const std::vector<hsize_t>& count = {}) {
  const std::string missing = missing_sources(d, directory_of(file_path), start, count);
  if (!missing.empty())
    throw InputError("cannot read dataset '" + name + "' of HDF5 file '" + file_path + "': " + missing);
}

/// The file coordinates of a block's box: start and count, component axis included.
void box_of(const Block& b, int ncomp, std::vector<hsize_t>& start, std::vector<hsize_t>& count) {
  start = h5::dims_of(b.file_start());
  if (ncomp > 0) start.push_back(0);
  count = h5::dims_of(b.file_count(ncomp));
}

h5::Id open_dataset(const std::string& file_path, hid_t file, const std::string& name) {
  // Rank files of a virtual dataset are named relative to the file that maps them: look for them
  // there, whatever the working directory.
  const std::string dir = directory_of(file_path);
  h5::Id dapl = h5::plist(H5Pcreate(H5P_DATASET_ACCESS));
  if (dapl.valid()) H5Pset_virtual_prefix(dapl.get(), dir.c_str());
  h5::Id d = h5::dataset(H5Dopen2(file, name.c_str(), dapl.valid() ? dapl.get() : H5P_DEFAULT));
  if (!d.valid()) {
    h5::error_detail();  // clear the stack: the sentence below says it all
    throw InputError("HDF5 file '" + file_path + "' has no dataset '" + name + "'");
  }
  return d;
}

}  // namespace

bool FieldReader::has_dataset(const std::string& name) const {
  if (name.empty()) return false;
  // Check each link along the path: H5Lexists on "a/b" fails (rather than says no) when "a" is missing.
  size_t pos = 0;
  while (true) {
    pos = name.find('/', pos + 1);
    const std::string prefix = name.substr(0, pos);
    if (H5Lexists(s_->file.get(), prefix.c_str(), H5P_DEFAULT) <= 0) {
      h5::error_detail();
      return false;
    }
    if (pos == std::string::npos) return true;
  }
}

std::vector<std::string> FieldReader::datasets() const {
  std::vector<std::string> names;
  if (H5Lvisit(s_->file.get(), H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &names) < 0)
    throw InputError(with_detail("cannot list the datasets of HDF5 file '" + s_->path + "'"));
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<index_t> FieldReader::shape(const std::string& name) const {
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  const std::vector<hsize_t> dims = dims_of_space(d.get());
  return std::vector<index_t>(dims.begin(), dims.end());
}

int FieldReader::value_bytes(const std::string& name) const {
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  h5::Id t = h5::type(H5Dget_type(d.get()));
  return t.valid() ? static_cast<int>(H5Tget_size(t.get())) : 0;
}

template <class T>
Array<T> FieldReader::read(const std::string& name) const {
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  require_sources(d.get(), s_->path, name);
  Array<T> a;
  const std::vector<hsize_t> dims = dims_of_space(d.get());
  size_t n = 1;
  for (hsize_t v : dims) {
    a.shape.push_back(static_cast<index_t>(v));
    n *= static_cast<size_t>(v);
  }
  a.data.resize(n);
  if (n > 0 && H5Dread(d.get(), h5::TypeOf<T>::mem(), H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()) < 0)
    throw InputError(with_detail("cannot read dataset '" + name + "' of HDF5 file '" + s_->path + "'"));
  return a;
}

namespace {

/// The stored type is an integer, or an enum (numpy bool through h5py) over an integer type.
bool integer_type(hid_t dset) {
  h5::Id t = h5::type(H5Dget_type(dset));
  if (!t.valid()) return false;
  const H5T_class_t cls = H5Tget_class(t.get());
  if (cls == H5T_INTEGER) return true;
  if (cls != H5T_ENUM) return false;
  h5::Id base = h5::type(H5Tget_super(t.get()));
  return base.valid() && H5Tget_class(base.get()) == H5T_INTEGER;
}

}  // namespace

bool FieldReader::is_integer(const std::string& name) const {
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  return integer_type(d.get());
}

Array<std::uint8_t> FieldReader::read_nonzero(const std::string& name) const {
  const std::string where = "dataset '" + name + "' of HDF5 file '" + s_->path + "'";
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  if (!integer_type(d.get())) throw InputError(where + " does not hold integers");
  require_sources(d.get(), s_->path, name);
  // Read in the stored type's native form (no value conversion), then test each value's bytes.
  h5::Id t = h5::type(H5Dget_type(d.get()));
  h5::Id mem = h5::type(t.valid() ? H5Tget_native_type(t.get(), H5T_DIR_ASCEND) : H5I_INVALID_HID);
  if (!mem.valid()) throw InputError(with_detail("cannot read " + where));
  const size_t width = H5Tget_size(mem.get());
  Array<std::uint8_t> a;
  size_t n = 1;
  for (hsize_t v : dims_of_space(d.get())) {
    a.shape.push_back(static_cast<index_t>(v));
    n *= static_cast<size_t>(v);
  }
  std::vector<unsigned char> raw(width == 1 ? 0 : n * width);
  a.data.resize(n);
  void* buf = width == 1 ? static_cast<void*>(a.data.data()) : static_cast<void*>(raw.data());
  if (n > 0 && H5Dread(d.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    throw InputError(with_detail("cannot read " + where));
  if (width == 1) {
    for (std::uint8_t& v : a.data) v = v != 0;
  } else {
    for (size_t i = 0; i < n; ++i)
      a.data[i] = std::any_of(raw.begin() + static_cast<std::ptrdiff_t>(i * width),
                              raw.begin() + static_cast<std::ptrdiff_t>((i + 1) * width),
                              [](unsigned char c) { return c != 0; });
  }
  return a;
}

template <class T>
std::vector<T> FieldReader::read_block(const std::string& name, const Block& block, int ncomp) const {
  const std::string where = "dataset '" + name + "' of HDF5 file '" + s_->path + "'";
  const std::string bad = block.check();
  if (!bad.empty()) throw Error("cannot read " + where + ": " + bad);
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  const std::vector<hsize_t> dims = dims_of_space(d.get());
  const std::vector<index_t> have(dims.begin(), dims.end());
  const std::vector<index_t> want = block.file_shape(ncomp);
  if (have != want)
    throw InputError("cannot read " + where + ": it has shape " + shape_text(have) + ", this run expects " +
                     shape_text(want));
  std::vector<hsize_t> start, count;
  box_of(block, ncomp, start, count);
  if (block.local_cells() > 0) require_sources(d.get(), s_->path, name, start, count);
  std::vector<T> out;
  if (!read_box(d.get(), block, ncomp, out)) throw InputError(with_detail("cannot read " + where));
  return out;
}

// ------------------------------------------------------------------------------------------ attributes

namespace {

struct OpenAttr {
  h5::Id obj;
  h5::Id attr;
};

OpenAttr open_attribute(const std::string& path, hid_t file, const std::string& name,
                        const std::string& object) {
  OpenAttr a;
  a.obj = h5::open_object(file, object);
  if (!a.obj.valid()) {
    h5::error_detail();
    throw InputError("HDF5 file '" + path + "' has no object '" + object + "'");
  }
  if (H5Aexists(a.obj.get(), name.c_str()) <= 0) {
    h5::error_detail();
    throw InputError("HDF5 file '" + path + "' has no attribute '" + name + "' on '" + object + "'");
  }
  a.attr = h5::attr(H5Aopen(a.obj.get(), name.c_str(), H5P_DEFAULT));
  if (!a.attr.valid())
    throw InputError(with_detail("cannot open attribute '" + name + "' in '" + path + "'"));
  return a;
}

template <class T>
std::vector<T> read_numbers(const std::string& path, hid_t file, const std::string& name,
                            const std::string& object, hid_t mem_type) {
  OpenAttr a = open_attribute(path, file, name, object);
  h5::Id space = h5::space(H5Aget_space(a.attr.get()));
  const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (n < 0) throw InputError(with_detail("cannot read attribute '" + name + "' in '" + path + "'"));
  h5::Id t = h5::type(H5Aget_type(a.attr.get()));
  const H5T_class_t cls = t.valid() ? H5Tget_class(t.get()) : H5T_NO_CLASS;
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    throw InputError("attribute '" + name + "' on '" + object + "' in HDF5 file '" + path +
                     "' is not numeric");
  std::vector<T> v(static_cast<size_t>(n));
  if (n > 0 && H5Aread(a.attr.get(), mem_type, v.data()) < 0)
    throw InputError(with_detail("cannot read attribute '" + name + "' in '" + path + "'"));
  return v;
}

template <class T>
T read_number(const std::string& path, hid_t file, const std::string& name, const std::string& object,
              hid_t mem_type) {
  const std::vector<T> v = read_numbers<T>(path, file, name, object, mem_type);
  if (v.size() != 1)
    throw InputError("attribute '" + name + "' on '" + object + "' in HDF5 file '" + path + "' holds " +
                     std::to_string(v.size()) + " values, expected one");
  return v[0];
}

}  // namespace

bool FieldReader::has_attribute(const std::string& name, const std::string& object) const {
  h5::Id obj = h5::open_object(s_->file.get(), object);
  const bool yes = obj.valid() && H5Aexists(obj.get(), name.c_str()) > 0;
  h5::error_detail();
  return yes;
}

std::string FieldReader::attribute_string(const std::string& name, const std::string& object) const {
  OpenAttr a = open_attribute(s_->path, s_->file.get(), name, object);
  h5::Id t = h5::type(H5Aget_type(a.attr.get()));
  if (!t.valid() || H5Tget_class(t.get()) != H5T_STRING)
    throw InputError("attribute '" + name + "' on '" + object + "' in HDF5 file '" + s_->path +
                     "' is not a string");
  const std::string fail = "cannot read attribute '" + name + "' in '" + s_->path + "'";
  if (H5Tis_variable_str(t.get()) > 0) {
    h5::Id mem = h5::vlen_string_type();
    char* p = nullptr;
    if (!mem.valid() || H5Aread(a.attr.get(), mem.get(), &p) < 0) throw InputError(with_detail(fail));
    std::string out = p ? p : "";
    H5free_memory(p);
    return out;
  }
  const size_t size = H5Tget_size(t.get());
  std::string out(size, '\0');
  h5::Id mem = h5::type(H5Tcopy(t.get()));
  if (!mem.valid() || H5Aread(a.attr.get(), mem.get(), out.data()) < 0) throw InputError(with_detail(fail));
  out.resize(std::min(out.find('\0'), out.size()));  // fixed-length strings are NUL- or space-padded
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

double FieldReader::attribute_double(const std::string& name, const std::string& object) const {
  return read_number<double>(s_->path, s_->file.get(), name, object, H5T_NATIVE_DOUBLE);
}
long FieldReader::attribute_long(const std::string& name, const std::string& object) const {
  return read_number<long>(s_->path, s_->file.get(), name, object, H5T_NATIVE_LONG);
}
std::uint64_t FieldReader::attribute_u64(const std::string& name, const std::string& object) const {
  return read_number<std::uint64_t>(s_->path, s_->file.get(), name, object, H5T_NATIVE_UINT64);
}
std::vector<double> FieldReader::attribute_doubles(const std::string& name, const std::string& object) const {
  return read_numbers<double>(s_->path, s_->file.get(), name, object, H5T_NATIVE_DOUBLE);
}
std::vector<long> FieldReader::attribute_longs(const std::string& name, const std::string& object) const {
  return read_numbers<long>(s_->path, s_->file.get(), name, object, H5T_NATIVE_LONG);
}

// ------------------------------------------------------------------------------------------- checksums

namespace {

std::uint64_t stored_checksum(const FieldReader& r, const std::string& name) {
  if (!r.has_attribute("checksum", name))
    throw InputError("dataset '" + name + "' of HDF5 file '" + r.path() + "' carries no checksum");
  if (r.has_attribute("checksum_scheme", name) &&
      r.attribute_string("checksum_scheme", name) != checksum_scheme)
    throw InputError("dataset '" + name + "' of HDF5 file '" + r.path() + "' has checksum scheme '" +
                     r.attribute_string("checksum_scheme", name) + "', this build knows '" + checksum_scheme +
                     "'");
  return r.attribute_u64("checksum", name);
}

}  // namespace

bool FieldReader::verify_checksum(const std::string& name) const {
  const std::uint64_t want = stored_checksum(*this, name);
  h5::Id d = open_dataset(s_->path, s_->file.get(), name);
  require_sources(d.get(), s_->path, name);
  std::uint64_t sum = 0;
  const bool ok = dispatch(kind_of(d.get()), [&](auto zero) {
    using T = decltype(zero);
    return whole_checksum<T>(d.get(), sum);
  });
  if (!ok)
    throw InputError(with_detail("cannot read dataset '" + name + "' of HDF5 file '" + s_->path + "'"));
  return sum == want;
}

bool FieldReader::verify_checksum(const std::string& name, const Block& block, int ncomp,
                                  const parallel::Comm& comm) const {
  std::uint64_t want = 0, partial = 0;
  std::string why;
  try {
    want = stored_checksum(*this, name);
    h5::Id d = open_dataset(s_->path, s_->file.get(), name);
    std::vector<hsize_t> start, count;
    box_of(block, ncomp, start, count);
    if (block.local_cells() > 0) require_sources(d.get(), s_->path, name, start, count);
    const bool ok = dispatch(kind_of(d.get()), [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> local;
      if (!read_box(d.get(), block, ncomp, local)) return false;
      partial = block_checksum(local.data(), block, ncomp);
      return true;
    });
    if (!ok) why = with_detail("cannot read dataset '" + name + "' of HDF5 file '" + s_->path + "'");
  } catch (const Error& e) {
    why = e.what();
  }
  throw_if_any_failed(comm, why.empty(), why, /*input_error=*/true);
  std::uint64_t total = 0;
  MPI_Allreduce(&partial, &total, 1, MPI_UINT64_T, MPI_SUM, comm.native());  // wraps mod 2^64
  return total == want;
}

// ------------------------------------------------------------------------- explicit instantiations

template Array<double> FieldReader::read(const std::string&) const;
template Array<float> FieldReader::read(const std::string&) const;
template Array<std::int32_t> FieldReader::read(const std::string&) const;
template Array<std::int64_t> FieldReader::read(const std::string&) const;
template Array<std::uint64_t> FieldReader::read(const std::string&) const;
template std::vector<double> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<float> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<std::int32_t> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<std::int64_t> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<std::uint64_t> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<std::uint16_t> FieldReader::read_block(const std::string&, const Block&, int) const;
template std::vector<std::uint8_t> FieldReader::read_block(const std::string&, const Block&, int) const;

}  // namespace eddy::io
