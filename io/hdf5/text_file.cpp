#include "io/hdf5/text_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace eddy::io {

std::string write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create '" + tmp + "': " + std::strerror(errno);
  int err = 0;  // the first failure's errno
  auto note = [&err](bool failed) {
    if (failed && err == 0) err = errno ? errno : EIO;
  };
  note(std::fwrite(text.data(), 1, text.size(), f) != text.size());
  note(std::fflush(f) != 0);
  note(::fsync(fileno(f)) != 0);  // the data are on disk before the rename makes them visible
  note(std::fclose(f) != 0);
  if (err) {
    std::remove(tmp.c_str());
    return "cannot write '" + tmp + "': " + std::strerror(err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return "cannot rename '" + tmp + "' to '" + path + "': " + why;
  }
  return {};
}

std::string format_double(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace eddy::io
