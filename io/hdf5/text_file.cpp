#include "io/hdf5/text_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace eddy::io {

std::string write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  // A new file of our own: whatever has the temporary's name goes first (a crashed run's file, or a
  // symbolic link, which is removed, never followed), and the file is created exclusively.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  std::FILE* f = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (!f) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return "cannot create '" + tmp + "': " + why;
  }
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
