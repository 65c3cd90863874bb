#include "io/hdf5/series_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "io/hdf5/agree.hpp"
#include "io/hdf5/h5_detail.hpp"

namespace eddy::io {

namespace fs = std::filesystem;

struct SeriesFile::File {
  h5::Id id;
};

namespace {

using h5::with_detail;

using h5::shape_text;

hsize_t count_of(const std::vector<index_t>& shape) {
  hsize_t n = 1;
  for (index_t e : shape) n *= static_cast<hsize_t>(e);
  return n;
}

h5::Id file_access() {
  h5::Id fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
  // STRONG: closing the file closes anything still open in it.
  if (!fapl.valid() || H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0) return h5::Id();
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  // No HDF5 file lock: a reader (h5py) may open the file while the run appends to it and sees the rows up
  // to the last flush. eddy.lock keeps a second run out of the directory.
  if (H5Pset_file_locking(fapl.get(), false, true) < 0) return h5::Id();
#endif
  return fapl;
}

/// A dataspace of `dims` (a scalar when empty), optionally with `max` dimensions.
h5::Id space_of(const std::vector<hsize_t>& dims, const std::vector<hsize_t>* max = nullptr) {
  if (dims.empty()) return h5::space(H5Screate(H5S_SCALAR));
  return h5::space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max ? max->data() : nullptr));
}

/// The current shape of a dataset, or empty with `ok` false.
std::vector<hsize_t> dataset_shape(hid_t dset, bool& ok) {
  h5::Id space = h5::space(H5Dget_space(dset));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  ok = rank >= 0;
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  if (ok && rank > 0) ok = H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) >= 0;
  return dims;
}

/// A dataset of `row` shape per row and no rows, growing along its first axis; chunks of about 64 KiB
/// (at most 1024 rows), so that an append rewrites little more than its row.
std::string create_column(hid_t file, const std::string& name, hid_t file_type,
                          const std::vector<index_t>& row) {
  std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{1};
  const hsize_t per_row = 8 * count_of(row);
  chunk[0] = std::clamp<hsize_t>(65536 / std::max<hsize_t>(per_row, 1), 1, 1024);
  for (index_t e : row) {
    if (e < 1) return "column '" + name + "' has an empty row shape";
    dims.push_back(static_cast<hsize_t>(e)), max.push_back(static_cast<hsize_t>(e)),
        chunk.push_back(static_cast<hsize_t>(e));
  }
  h5::Id space = space_of(dims, &max);
  h5::Id dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
  if (!space.valid() || !dcpl.valid() ||
      H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) < 0)
    return with_detail("cannot describe dataset '" + name + "'");
  h5::Id d = h5::dataset(
      H5Dcreate2(file, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  if (!d.valid()) return with_detail("cannot create dataset '" + name + "'");
  return {};
}

/// Attribute `name` of `object` (a dataset or the root group) holding `values` of `shape`.
std::string put_doubles(hid_t object, const std::string& name, const std::vector<index_t>& shape,
                        const std::vector<double>& values) {
  if (values.size() != count_of(shape)) return "attribute '" + name + "' has the wrong number of values";
  h5::Id space = space_of(h5::dims_of(shape));
  h5::Id a =
      space.valid()
          ? h5::attr(H5Acreate2(object, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT))
          : h5::Id();
  if (!a.valid() || H5Awrite(a.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
    return with_detail("cannot write attribute '" + name + "'");
  return {};
}

std::string put_text(hid_t object, const std::string& name, const std::string& value) {
  h5::Id t = h5::vlen_string_type();
  h5::Id space = h5::space(H5Screate(H5S_SCALAR));
  h5::Id a = t.valid() && space.valid()
                 ? h5::attr(H5Acreate2(object, name.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT))
                 : h5::Id();
  const char* p = value.c_str();
  if (!a.valid() || H5Awrite(a.get(), t.get(), &p) < 0)
    return with_detail("cannot write attribute '" + name + "'");
  return {};
}

/// The layout's datasets and attributes in a new, empty file; "" or what failed.
std::string write_layout(hid_t file, const SeriesLayout& layout) {
  std::string why = create_column(file, "step", H5T_STD_I64LE, {});
  if (why.empty()) why = create_column(file, "time", H5T_IEEE_F64LE, {});
  for (const SeriesArray& c : layout.columns)
    if (why.empty()) why = create_column(file, c.name, H5T_IEEE_F64LE, c.shape);
  for (const SeriesArray& d : layout.datasets) {
    if (!why.empty()) break;
    if (d.values.size() != count_of(d.shape))
      return "dataset '" + d.name + "' has the wrong number of values";
    h5::Id space = space_of(h5::dims_of(d.shape));
    h5::Id ds = space.valid() ? h5::dataset(H5Dcreate2(file, d.name.c_str(), H5T_IEEE_F64LE, space.get(),
                                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))
                              : h5::Id();
    if (!ds.valid() ||
        H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data()) < 0)
      why = with_detail("cannot write dataset '" + d.name + "'");
  }
  // Units: the time and every column or dataset that has one.
  std::vector<std::pair<std::string, std::string>> units{{"time", "s"}};
  for (const auto* list : {&layout.columns, &layout.datasets})
    for (const SeriesArray& a : *list)
      if (!a.units.empty()) units.emplace_back(a.name, a.units);
  for (const auto& [name, u] : units) {
    if (!why.empty()) break;
    h5::Id ds = h5::dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
    why = ds.valid() ? put_text(ds.get(), "units", u) : with_detail("cannot open dataset '" + name + "'");
  }
  h5::Id root = h5::open_object(file, "/");
  if (why.empty() && !root.valid()) why = with_detail("cannot open the root group");
  for (const SeriesArray& a : layout.attributes)
    if (why.empty()) why = put_doubles(root.get(), a.name, a.shape, a.values);
  for (const auto& [name, value] : layout.text)
    if (why.empty()) why = put_text(root.get(), name, value);
  return why;
}

/// Values of a whole double dataset or attribute of `count` values; false when it cannot be read.
bool read_doubles(hid_t object, const std::string& name, bool attribute, std::vector<double>& out,
                  std::size_t count) {
  out.assign(count, 0.0);
  if (attribute) {
    h5::Id a = h5::attr(H5Aopen(object, name.c_str(), H5P_DEFAULT));
    h5::Id space = a.valid() ? h5::space(H5Aget_space(a.get())) : h5::Id();
    if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != static_cast<hssize_t>(count))
      return false;
    return H5Aread(a.get(), H5T_NATIVE_DOUBLE, out.data()) >= 0;
  }
  h5::Id d = h5::dataset(H5Dopen2(object, name.c_str(), H5P_DEFAULT));
  h5::Id space = d.valid() ? h5::space(H5Dget_space(d.get())) : h5::Id();
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != static_cast<hssize_t>(count))
    return false;
  return H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0;
}

/// "" when `file` holds the layout (step, time, the columns with their row shapes, the written-once
/// arrays with the same values); else what differs. `rows` gets the rows every dataset holds (the fewest).
std::string layout_problem(hid_t file, const SeriesLayout& layout, hsize_t& rows) {
  std::vector<SeriesArray> columns{{"step", {}, {}, ""}, {"time", {}, {}, ""}};
  columns.insert(columns.end(), layout.columns.begin(), layout.columns.end());
  rows = ~hsize_t(0);
  for (const SeriesArray& c : columns) {
    if (H5Lexists(file, c.name.c_str(), H5P_DEFAULT) <= 0) return "it has no dataset '" + c.name + "'";
    h5::Id d = h5::dataset(H5Dopen2(file, c.name.c_str(), H5P_DEFAULT));
    bool ok = d.valid();
    std::vector<hsize_t> shape = ok ? dataset_shape(d.get(), ok) : std::vector<hsize_t>();
    if (!ok || shape.empty()) return with_detail("its dataset '" + c.name + "' cannot be read");
    rows = std::min(rows, shape[0]);
    shape.erase(shape.begin());
    const std::vector<hsize_t> want = h5::dims_of(c.shape);
    if (shape != want)
      return "its rows of '" + c.name + "' have the shape " + shape_text(shape) + ", this run's " +
             shape_text(want);
  }
  std::vector<double> v;
  for (const SeriesArray& d : layout.datasets)
    if (!read_doubles(file, d.name, false, v, d.values.size()) || v != d.values)
      return "its dataset '" + d.name + "' differs from this run's";
  h5::Id root = h5::open_object(file, "/");
  for (const SeriesArray& a : layout.attributes)
    if (!root.valid() || H5Aexists(root.get(), a.name.c_str()) <= 0 ||
        !read_doubles(root.get(), a.name, true, v, a.values.size()) || v != a.values)
      return "its attribute '" + a.name + "' differs from this run's";
  h5::error_detail();
  return {};
}

/// Set the first extent of dataset `name` to `rows` (shrinking drops the rows past it).
bool set_rows(hid_t file, const std::string& name, hsize_t rows) {
  h5::Id d = h5::dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  bool ok = d.valid();
  std::vector<hsize_t> shape = ok ? dataset_shape(d.get(), ok) : std::vector<hsize_t>();
  if (!ok || shape.empty()) return false;
  shape[0] = rows;
  return H5Dset_extent(d.get(), shape.data()) >= 0;
}

/// Row `row` of dataset `name` (one more row than before): `data` holds the row's values.
bool write_row(hid_t file, const std::string& name, hid_t mem_type, const void* data, hsize_t row) {
  h5::Id d = h5::dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  bool ok = d.valid();
  std::vector<hsize_t> shape = ok ? dataset_shape(d.get(), ok) : std::vector<hsize_t>();
  if (!ok || shape.empty()) return false;
  shape[0] = row + 1;
  if (H5Dset_extent(d.get(), shape.data()) < 0) return false;
  h5::Id fspace = h5::space(H5Dget_space(d.get()));
  std::vector<hsize_t> start(shape.size(), 0), count = shape;
  start[0] = row, count[0] = 1;
  h5::Id mspace = space_of(count);
  if (!fspace.valid() || !mspace.valid() ||
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
    return false;
  return H5Dwrite(d.get(), mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data) >= 0;
}

}  // namespace

SeriesFile::SeriesFile(std::string path, SeriesLayout layout, const parallel::Comm& comm)
    : path_(std::move(path)), layout_(std::move(layout)), comm_(comm) {
  h5::silence_errors();
}
SeriesFile::SeriesFile(SeriesFile&&) noexcept = default;
SeriesFile& SeriesFile::operator=(SeriesFile&&) noexcept = default;
SeriesFile::~SeriesFile() = default;

SeriesFile SeriesFile::create(const std::string& path, const SeriesLayout& layout,
                              const parallel::Comm& comm) {
  SeriesFile s(path, layout, comm);
  std::string why;
  if (comm.rank() == 0) {
    // The temporary is a new file of this run's own: whatever has its name (a crashed run's file, a
    // symbolic link) is removed, never followed, and it is created exclusively.
    const std::string tmp = path + ".tmp";
    ::unlink(tmp.c_str());
    h5::Id fapl = file_access();
    h5::Id f =
        fapl.valid() ? h5::file(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get())) : h5::Id();
    if (!f.valid()) why = with_detail("cannot create '" + tmp + "'");
    if (why.empty()) why = write_layout(f.get(), layout);
    if (why.empty() && !f.close()) why = with_detail("cannot close '" + tmp + "'");
    if (why.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
      why = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno);
    if (!why.empty()) {
      f.close();
      ::unlink(tmp.c_str());
    } else {
      s.file_ = std::make_unique<File>();
      s.file_->id = h5::file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()));
      if (!s.file_->id.valid()) why = with_detail("cannot reopen '" + path + "'");
    }
  }
  throw_if_any_failed(comm, why.empty(), "cannot write " + layout.key + " file '" + path + "': " + why);
  return s;
}

void SeriesFile::check_append(const std::string& path, const SeriesLayout& layout,
                              const parallel::Comm& comm) {
  h5::silence_errors();
  std::string why;
  if (comm.rank() == 0) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) {
      h5::Id fapl = file_access();
      h5::Id f = fapl.valid() ? h5::file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get())) : h5::Id();
      hsize_t rows = 0;
      why = f.valid() ? layout_problem(f.get(), layout, rows) : with_detail("it is not a readable HDF5 file");
    }
  }
  throw_if_any_failed(comm, why.empty(),
                      "cannot continue " + layout.key + " file '" + path + "': " + why +
                          "; move the old file away, or restart with the " + layout.key + " that wrote it",
                      /*input_error=*/true);
}

SeriesFile SeriesFile::open_append(const std::string& path, const SeriesLayout& layout,
                                   const parallel::Comm& comm, long keep_up_to_step) {
  check_append(path, layout, comm);  // the file holds this layout (or there is none)
  bool exists = false;
  if (comm.rank() == 0) {
    std::error_code ec;
    exists = fs::exists(fs::symlink_status(path, ec));
  }
  if (!comm.any(exists)) return create(path, layout, comm);
  SeriesFile s(path, layout, comm);
  s.open_existing(keep_up_to_step);
  return s;
}

void SeriesFile::open_existing(long keep_up_to_step) {
  std::string why;
  long rows = 0;
  if (comm_.rank() == 0) {
    file_ = std::make_unique<File>();
    h5::Id fapl = file_access();
    file_->id = fapl.valid() ? h5::file(H5Fopen(path_.c_str(), H5F_ACC_RDWR, fapl.get())) : h5::Id();
    const hid_t f = file_->id.get();
    hsize_t have = 0;
    if (!file_->id.valid()) why = with_detail("cannot open it for writing");
    if (why.empty()) why = layout_problem(f, layout_, have);
    // Keep the rows up to the first one past keep_up_to_step: the later ones were written after the
    // checkpoint a restart continues from. Every dataset is cut to the same rows (a torn append of an
    // earlier run leaves some longer than others).
    std::vector<std::int64_t> steps(have);
    if (why.empty() && have > 0) {
      h5::Id d = h5::dataset(H5Dopen2(f, "step", H5P_DEFAULT));
      h5::Id fspace = d.valid() ? h5::space(H5Dget_space(d.get())) : h5::Id();
      const hsize_t start = 0;
      h5::Id mspace = space_of({have});
      if (!fspace.valid() || !mspace.valid() ||
          H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &have, nullptr) < 0 ||
          H5Dread(d.get(), H5T_NATIVE_INT64, mspace.get(), fspace.get(), H5P_DEFAULT, steps.data()) < 0)
        why = with_detail("cannot read its steps");
    }
    hsize_t keep = 0;
    while (keep < have && steps[keep] <= keep_up_to_step) ++keep;
    std::vector<std::string> names{"step", "time"};
    for (const SeriesArray& c : layout_.columns) names.push_back(c.name);
    for (const std::string& n : names)
      if (why.empty() && !set_rows(f, n, keep))
        why = with_detail("cannot drop its rows past step " + std::to_string(keep_up_to_step));
    if (why.empty() && H5Fflush(f, H5F_SCOPE_LOCAL) < 0) why = with_detail("cannot flush it");
    rows = static_cast<long>(keep);
  }
  throw_if_any_failed(comm_, why.empty(), "cannot continue " + layout_.key + " file '" + path_ + "': " + why);
  rows_ = comm_.sum(rows);
}

void SeriesFile::append(long step, double time, const std::vector<std::vector<double>>& values) {
  if (values.size() != layout_.columns.size())
    throw Error("series file '" + path_ + "': a row of " + std::to_string(values.size()) + " columns for " +
                std::to_string(layout_.columns.size()));
  for (std::size_t c = 0; c < values.size(); ++c)
    if (values[c].size() != count_of(layout_.columns[c].shape))
      throw Error("series file '" + path_ + "': column '" + layout_.columns[c].name + "' takes " +
                  std::to_string(count_of(layout_.columns[c].shape)) + " values a row, got " +
                  std::to_string(values[c].size()));
  std::string why;
  if (comm_.rank() == 0) {
    const hid_t f = file_ ? file_->id.get() : H5I_INVALID_HID;
    const auto row = static_cast<hsize_t>(rows_);
    const std::int64_t s = step;
    bool ok = f >= 0 && write_row(f, "step", H5T_NATIVE_INT64, &s, row) &&
              write_row(f, "time", H5T_NATIVE_DOUBLE, &time, row);
    for (std::size_t c = 0; c < values.size() && ok; ++c)
      ok = write_row(f, layout_.columns[c].name, H5T_NATIVE_DOUBLE, values[c].data(), row);
    ok = ok && H5Fflush(f, H5F_SCOPE_LOCAL) >= 0;
    if (!ok) why = with_detail("cannot append the row of step " + std::to_string(step));
  }
  throw_if_any_failed(comm_, why.empty(), "cannot write " + layout_.key + " file '" + path_ + "': " + why);
  ++rows_;
}

}  // namespace eddy::io
