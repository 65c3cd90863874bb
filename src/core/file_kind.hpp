#pragma once
/// Input files are regular files: a FIFO blocks a reader forever and a directory or a device fails deep
/// inside it, so every reader of an input file asks first.
#include <filesystem>
#include <string>
#include <system_error>

namespace eddy {

/// Why `path` is not a regular file (or a link to one) that eddy can read: "no such file", "it is a
/// directory", "it is a FIFO (named pipe)", "it is not a regular file"; empty when it is one.
inline std::string not_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return "no such file";
  if (fs::is_regular_file(st)) return "";
  if (fs::is_directory(st)) return "it is a directory";
  if (fs::is_fifo(st)) return "it is a FIFO (named pipe); give a regular file";
  return "it is not a regular file (a device or socket); give a regular file";
}

}  // namespace eddy
