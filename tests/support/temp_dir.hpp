#pragma once
// A fresh directory per test under the system's temporary directory, removed afterwards; named after
// the process and the running gtest test so parallel ctest runs never share one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace eddy::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "eddy_") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name)
      if (c == '/') c = '_';
    path_ = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& f) const { return (path_ / f).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace eddy::test
