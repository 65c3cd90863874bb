#pragma once
/// Internal to io/hdf5: owning HDF5 handles, type maps, and error-stack text. Only the .cpp files of
/// io/hdf5 include this header, so hdf5.h stays out of the rest of eddy.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

#if defined(EDDY_HDF5_PARALLEL) && !defined(H5_HAVE_PARALLEL)
#error "EDDY_HDF5_PARALLEL is set but the HDF5 headers found are a serial build"
#endif

namespace eddy::io::h5 {

/// Replace HDF5's automatic error-stack printing (once per process) by a quiet recorder: every call's
/// return code is checked here and reported as an eddy::Error that names the file, with
/// error_detail() appended.
void silence_errors();

/// The last failed HDF5 call's reason, e.g. "unable to open file: No such file or directory", and
/// forget it; "" when nothing failed since the last call.
std::string error_detail();

/// `what` with the last failed HDF5 call's reason appended, "what (HDF5: reason)" (error_detail()), or
/// `what` alone when nothing failed.
std::string with_detail(const std::string& what);

/// A dataset shape as text, "(2, 3)".
template <class T>
std::string shape_text(const std::vector<T>& shape) {
  std::string t = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + std::to_string(shape[i]);
  return t + ")";
}

/// An owning hid_t: closes with the right H5?close on destruction. Moves, never copies.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Closer closer) : id_(id), close_(closer) {}
  ~Id() { reset(); }
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Id& operator=(Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Close now; returns false when H5?close failed (e.g. the final flush of a file hit a full disk).
  bool close() {
    bool ok = true;
    if (id_ >= 0 && close_) ok = close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }
  void reset() { close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

inline Id file(hid_t id) { return Id(id, H5Fclose); }
inline Id dataset(hid_t id) { return Id(id, H5Dclose); }
inline Id space(hid_t id) { return Id(id, H5Sclose); }
inline Id plist(hid_t id) { return Id(id, H5Pclose); }
inline Id attr(hid_t id) { return Id(id, H5Aclose); }
inline Id type(hid_t id) { return Id(id, H5Tclose); }
inline Id object(hid_t id) { return Id(id, H5Oclose); }

/// Memory (native) and file (fixed little-endian, portable) types of the element types eddy writes.
template <class T>
struct TypeOf;
template <>
struct TypeOf<double> {
  static hid_t mem() { return H5T_NATIVE_DOUBLE; }
  static hid_t file() { return H5T_IEEE_F64LE; }
};
template <>
struct TypeOf<float> {
  static hid_t mem() { return H5T_NATIVE_FLOAT; }
  static hid_t file() { return H5T_IEEE_F32LE; }
};
template <>
struct TypeOf<std::int64_t> {
  static hid_t mem() { return H5T_NATIVE_INT64; }
  static hid_t file() { return H5T_STD_I64LE; }
};
template <>
struct TypeOf<std::uint64_t> {
  static hid_t mem() { return H5T_NATIVE_UINT64; }
  static hid_t file() { return H5T_STD_U64LE; }
};
template <>
struct TypeOf<std::uint16_t> {
  static hid_t mem() { return H5T_NATIVE_UINT16; }
  static hid_t file() { return H5T_STD_U16LE; }
};
template <>
struct TypeOf<std::uint8_t> {
  static hid_t mem() { return H5T_NATIVE_UINT8; }
  static hid_t file() { return H5T_STD_U8LE; }
};
template <>
struct TypeOf<std::int32_t> {
  static hid_t mem() { return H5T_NATIVE_INT32; }
  static hid_t file() { return H5T_STD_I32LE; }
};

/// A shape as HDF5 wants it.
inline std::vector<hsize_t> dims_of(const std::vector<index_t>& shape) {
  return std::vector<hsize_t>(shape.begin(), shape.end());
}

/// A UTF-8 variable-length string type (h5py reads it back as `str`, not `bytes`).
Id vlen_string_type();

/// Open `object` ("/" = root group, else a dataset or group path) in `file`; invalid Id on failure.
Id open_object(hid_t file, const std::string& object);

}  // namespace eddy::io::h5
