#pragma once
/// Validations: comparisons of a finished run against a published reference or an exact solution, chosen
/// by `validation.reference` and printed at the end of `eddy run`.
///
/// A validation belongs to its case: `cases/<case>/validation.cpp` defines it and a function
/// `register_<case>(ValidationRegistry&)` that adds it by name; the build finds these files and calls
/// every such function (scripts/cmake/validations.cmake), and the config schema's list of valid
/// references is made from the same names. A validation sees the run where its data lives: each rank
/// holds its own block of the final fields and contributes what it owns; reductions assemble the figures,
/// so no rank ever holds the whole field.
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

/// One figure of a validation: what was measured, its value and the bound it had to meet.
struct ValidationResult {
  std::string name;    ///< the reference, as in validation.reference (e.g. "ghia1982")
  std::string metric;  ///< an identifier of the figure (e.g. "u_max_error"), stable for scripts and tests
  double value = 0.0;
  double bound =
      std::numeric_limits<double>::infinity();  ///< the figure must be <= bound; inf: reported only
  bool passed = true;
  std::string what;  ///< the figure in words, with its unit ("max |u - u_Ghia| along x = 0.5, in U")
};

/// Samples of the kinetic energy budget over the run, on every rank alike: times t, dissipation eps (the
/// solver's own, or -dE/dt between diagnostics rows) and kinetic energy e, and what the samples are.
struct EnergySeries {
  std::vector<double> t, eps, e;
  std::string what;  ///< e.g. "samples of -dE/dt"
};

/// What a finished run offers a validation.
struct FinalState {
  const config::RunSpec& spec;
  const parallel::Comm& comm;
  io::Block block;                      ///< this rank's box of the global grid (interior cells)
  Real3 spacing{1.0, 1.0, 1.0};         ///< cell size [m]
  double time = 0.0;                    ///< physical time reached [s]
  double nu = 0.0;                      ///< kinematic viscosity [m^2/s] the solver ran with
  const std::vector<double>& velocity;  ///< this rank's box, x fastest, `block.dims` components [m/s]
  const EnergySeries& series;
};

/// The interface of a validation.
class Validation {
 public:
  virtual ~Validation() = default;
  /// Refuse (InputError: exit 2, before anything is written) what this validation cannot compare:
  /// another solver or dimension, a reference file without the case's data.
  virtual void check(const config::RunSpec&) const {}
  /// The comparison. Collective: every rank calls it with its own block and returns the same results.
  /// `tolerance` > 0 (validation.tolerance) bounds the validation's main figures.
  virtual std::vector<ValidationResult> finish(const FinalState& state, double tolerance) const = 0;
};

/// The validations by name.
class ValidationRegistry {
 public:
  /// Add a validation; `description` is one line for `eddy info` and error messages.
  void add(const std::string& name, const std::string& description, std::unique_ptr<Validation> v);
  /// The validation registered as `name`, or nullptr.
  const Validation* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name, description;
    std::unique_ptr<Validation> validation;
  };
  std::vector<Entry> entries_;
};

/// Every validation of every case (built on first use).
const ValidationRegistry& validations();

/// The configured validation's input checks (none for validation.reference: none). InputError names
/// the key and what would be valid.
void check_validation(const config::RunSpec& spec);

/// Run the configured validation at the end of a run, log its report and, on rank 0, write
/// <out>/validation.csv (name, metric, value, bound, passed). Empty for validation.reference: none.
/// Collective.
std::vector<ValidationResult> finish_validation(const FinalState& state, const std::string& out_dir);

/// A figure `value` of validation `name` bounded by `bound` (inf: reported only).
ValidationResult figure(const std::string& name, const std::string& metric, double value,
                        const std::string& what, double bound = std::numeric_limits<double>::infinity());

/// One number of a reference table: the whole of `text` must be a finite number, else InputError naming
/// `file`:`line`, the column and the text (validation.file).
double table_number(const std::string& text, const std::string& file, long line, const std::string& column);
/// Open a reference table (validation.file): InputError naming the file unless it is a readable regular file.
std::ifstream open_table(const std::string& file, const std::string& what);

/// The value of `metric` among `results`; NaN when it is missing.
double metric(const std::vector<ValidationResult>& results, const std::string& metric);

/// A file shipped with eddy (reference data of a case), by its path in the source tree, e.g.
/// "cases/lid_driven_cavity/ghia1982_re100_400_1000.csv".
std::string shipped_file(const std::string& relative);

}  // namespace eddy::app
