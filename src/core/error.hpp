#pragma once
/// Error types. Each maps to one process exit code (src/README.md, Exit codes).
#include <stdexcept>
#include <string>

namespace eddy {

/// Exit codes of the `eddy` executable.
enum ExitCode : int { exit_ok = 0, exit_failure = 1, exit_bad_input = 2, exit_numerical = 3 };

/// Anything that is not the user's fault and not numerical: environment, I/O, device (exit 1).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  virtual int exit_code() const { return exit_failure; }
};

/// Bad input: config, command line or input files (exit 2). The message names the key or file.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what) {}
  int exit_code() const override { return exit_bad_input; }
};

/// Numerical failure: NaN/Inf or a stability limit exceeded (exit 3), with step and location.
class NumericalError : public Error {
 public:
  explicit NumericalError(const std::string& what) : Error(what) {}
  int exit_code() const override { return exit_numerical; }
};

}  // namespace eddy
