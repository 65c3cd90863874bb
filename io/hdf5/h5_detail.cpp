#include "io/hdf5/h5_detail.hpp"

#include <mutex>

namespace eddy::io::h5 {

namespace {

// The last failure's text. HDF5 calls record() (its "automatic" error handler) as a failing API call
// returns, before any later call can clear the stack: closing a dataspace after a failed H5Dwrite
// would otherwise erase the reason.
thread_local std::string last_error;

struct Walk {
  std::string innermost;  // first entry walking upward: where the error was detected
  std::string outer;      // last entry: the API call that failed
  int n = 0;
};

herr_t walk_cb(unsigned /*n*/, const H5E_error2_t* e, void* data) {
  auto* w = static_cast<Walk*>(data);
  const std::string desc = (e && e->desc) ? e->desc : "";
  if (w->n == 0) w->innermost = desc;
  w->outer = desc;
  ++w->n;
  return 0;
}

herr_t record(hid_t stack, void* /*client*/) {
  Walk w;
  H5Ewalk2(stack, H5E_WALK_UPWARD, walk_cb, &w);
  if (w.n == 0) return 0;
  // Low-level entries carry the system's reason as "error message = '...'"; that is what a user needs.
  std::string reason = w.innermost;
  const std::string key = "error message = '";
  const size_t at = reason.find(key);
  if (at != std::string::npos) {
    const size_t end = reason.find('\'', at + key.size());
    reason =
        reason.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
  } else if (reason.size() > 200) {
    reason = reason.substr(0, 200) + "...";
  }
  last_error = (w.n == 1 || w.outer == reason) ? reason : w.outer + ": " + reason;
  return 0;
}

}  // namespace

void silence_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, record, nullptr); });
}

std::string error_detail() {
  std::string s;
  s.swap(last_error);
  return s;
}

std::string with_detail(const std::string& what) {
  const std::string d = error_detail();
  return d.empty() ? what : what + " (HDF5: " + d + ")";
}

Id vlen_string_type() {
  Id t = type(H5Tcopy(H5T_C_S1));
  if (!t.valid() || H5Tset_size(t.get(), H5T_VARIABLE) < 0 || H5Tset_cset(t.get(), H5T_CSET_UTF8) < 0)
    return Id();
  return t;
}

Id open_object(hid_t file, const std::string& object) {
  return h5::object(H5Oopen(file, object.empty() ? "/" : object.c_str(), H5P_DEFAULT));
}

}  // namespace eddy::io::h5
