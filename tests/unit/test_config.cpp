// Config loader: defaults, every class of input error (key path + line:column), --set, to_yaml round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/field_file.hpp"
#include "tests/support/input_error.hpp"

namespace {

using eddy::config::load_text;
using eddy::config::RunSpec;

const std::string kMinimal = "run:\n  steps: 10\n";

/// The message of the InputError that loading throws, or "(loaded)".
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return eddy::test::input_error_of([&] { load_text(yaml, "case.yaml", sets); }, "(loaded)");
}

/// Loading must fail with a message holding every one of `parts`.
void expect_error(const std::string& yaml, std::initializer_list<std::string> parts,
                  const std::vector<std::string>& sets = {}) {
  eddy::test::expect_parts(error_of(yaml, sets), parts);
}

TEST(Config, DefaultsFromMinimalFile) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const RunSpec s = load_text(kMinimal, "min.yaml");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

  const RunSpec d;  // the struct defaults
  EXPECT_EQ(s.name, d.name);
  EXPECT_EQ(s.solver, "lbm");
  EXPECT_EQ(s.domain.cells, (std::vector<long>{128, 128}));
  EXPECT_EQ(s.domain.length, (std::vector<double>{1.0, 1.0}));  // normalised to one per dimension
  EXPECT_EQ(s.physics.reynolds, d.physics.reynolds);
  EXPECT_EQ(s.numerics.precision, "fp64");
  EXPECT_EQ(s.numerics.lattice, "D2Q9");  // auto resolved
  EXPECT_EQ(s.numerics.trt_magic, d.numerics.trt_magic);
  EXPECT_EQ(s.boundaries.y_max.type, "wall");
  EXPECT_EQ(s.output.diagnostics.every.steps, 100);
  EXPECT_FALSE(s.output.fields.every.enabled());
  EXPECT_TRUE(s.output.fields.at_end);
  EXPECT_EQ(s.output.checkpoint.keep, 3);
  EXPECT_EQ(s.run.steps, 10);
  EXPECT_EQ(s.run.steady.check_every, d.run.steady.check_every);
  EXPECT_EQ(s.parallel.comm, "auto");
  EXPECT_TRUE(s.parallel.ranks.empty());
  EXPECT_TRUE(s.parallel.overlap);
  EXPECT_EQ(s.validation.reference, "none");
  EXPECT_EQ(s.source_file, "min.yaml");
  EXPECT_EQ(s.resolved_yaml, eddy::config::to_yaml(s));
  EXPECT_NE(s.resolved_yaml.find("  precision: fp64\n"), std::string::npos) << s.resolved_yaml;
}

TEST(Config, EmptySectionMeansDefaults) {
  const RunSpec s = load_text("numerics:\nrun:\n  steps: 1\n", "x.yaml");
  EXPECT_EQ(s.numerics.collision, "bgk");
}

TEST(Config, BadPrecisionNamesFileKeyLineColumnAndChoices) {
  const std::string yaml = R"(# line 1
name: cavity
solver: lbm
domain:
  cells: [64, 64]
  length: 1.0
physics:
  reynolds: 100
run:
  steps: 10
numerics:
  precision: fp42
)";
  EXPECT_EQ(error_of(yaml),
            "case.yaml:12:14: numerics.precision: 'fp42' is not one of fp64, fp32, fp32/fp16");
}

TEST(Config, UnknownKeyDidYouMean) {
  expect_error(kMinimal + "numerics:\n  precison: fp32\n",
               {"case.yaml:4:3: numerics.precison: unknown key; did you mean 'precision'?"});
  expect_error(kMinimal + "domian:\n  cells: [8, 8]\n",
               {"case.yaml:3:1: domian: unknown key; did you mean 'domain'?"});
  expect_error(kMinimal + "run:\n  stesp: 5\n", {"case.yaml:3:1: run: duplicate key"});
  expect_error("run:\n  stpes: 10\n", {"case.yaml:2:3: run.stpes: unknown key; did you mean 'steps'?"});
  // A key from another section is pointed to.
  expect_error(kMinimal + "reynolds: 100\n",
               {"case.yaml:3:1: reynolds: unknown key; did you mean 'physics.reynolds'?"});
  // Nothing close: the valid keys are listed.
  expect_error(kMinimal + "physics:\n  zzzzzzzz: 1\n",
               {"physics.zzzzzzzz: unknown key; valid keys in physics: reynolds, velocity, reference_length, "
                "density"});
  expect_error(kMinimal + "boundaries:\n  x_min:\n    typ: wall\n",
               {"case.yaml:5:5: boundaries.x_min.typ", "'type'"});
}

TEST(Config, DuplicateKey) {
  expect_error("run:\n  steps: 10\n  steps: 20\n", {"case.yaml:3:3: run.steps: duplicate key"});
}

TEST(Config, WrongTypes) {
  expect_error(kMinimal + "physics:\n  reynolds: abc\n",
               {"case.yaml:4:13: physics.reynolds: expected a number, got 'abc'"});
  expect_error(kMinimal + "physics:\n  reynolds: [1, 2]\n",
               {"case.yaml:4:13: physics.reynolds", "expected a number, got a list"});
  expect_error(kMinimal + "physics:\n  reynolds: \"100\"\n",
               {"physics.reynolds", "expected a number", "quoted"});
  expect_error("run:\n  steps: 1.5\n", {"case.yaml:2:10: run.steps: expected an integer, got '1.5'"});
  expect_error("run:\n  steps: 99999999999999999999999\n", {"run.steps", "out of range"});
  expect_error(kMinimal + "domain:\n  cells: 64\n",
               {"case.yaml:4:10: domain.cells: expected a list of integers"});
  expect_error(kMinimal + "domain:\n  cells: [64, 6.5]\n",
               {"case.yaml:4:15: domain.cells[1]: expected an integer, got '6.5'"});
  expect_error(kMinimal + "domain:\n  cells: [64, [1]]\n",
               {"domain.cells[1]: expected an integer, got a list"});
  expect_error(kMinimal + "domain:\n  cells: {a: 1}\n",
               {"domain.cells: expected a list of integers", "got a map"});
  expect_error(kMinimal + "domain:\n  length: abc\n",
               {"domain.length: expected a number or a list of numbers"});
  expect_error(kMinimal + "solver: [lbm]\n",
               {"case.yaml:3:9: solver: expected one of lbm, spectral, got a list"});
  expect_error(kMinimal + "name:\n", {"name: expected a string, got nothing"});
  expect_error(kMinimal + "numerics: 3\n",
               {"case.yaml:3:11: numerics: expected a section with keys precision, lattice", "got '3'"});
  expect_error(kMinimal + "output:\n  fields:\n    at_end: maybe\n",
               {"output.fields.at_end: expected true or false"});
  expect_error(kMinimal + "physics:\n  reynolds: .inf\n", {"physics.reynolds: expected a number"});
  expect_error(kMinimal + "physics:\n  reynolds: nan\n", {"physics.reynolds: expected a number"});
  expect_error(kMinimal + "[a]: 1\n", {"case.yaml:3:1", "keys must be plain names"});
}

TEST(Config, NumbersInEveryYamlSpelling) {
  const RunSpec s =
      load_text(kMinimal + "physics:\n  reynolds: 1e3\n  velocity: +2\n  density: .5\n", "x.yaml");
  EXPECT_EQ(s.physics.reynolds, 1000.0);
  EXPECT_EQ(s.physics.velocity, 2.0);
  EXPECT_EQ(s.physics.density, 0.5);
}

TEST(Config, FileLevelErrors) {
  EXPECT_EQ(error_of(""),
            "case.yaml: the configuration is empty; expected a map of sections (solver, domain, ...)");
  expect_error("# only a comment\n", {"case.yaml: the configuration is empty"});
  expect_error("- a\n- b\n", {"case.yaml:1:1: the top level must be a map", "got a list"});
  expect_error("just text\n", {"case.yaml:1:1: the top level must be a map"});
  expect_error("run:\n  steps: [1, 2\nname: x\n", {"case.yaml:", "YAML syntax error"});
  expect_error("run:\n  steps: 1\n   bad: indent\n", {"case.yaml:3:", "YAML syntax error"});
  expect_error("run: {steps: 1}\n---\nrun: {steps: 2}\n", {"case.yaml: holds 2 YAML documents"});
  // A quote inside a plain scalar of a flow map is an ordinary character: the '}' after it closes the map,
  // so the line checks go on and refuse the stray ',' line that yaml-cpp 0.7 would loop on, allocating
  // without end (tests/fuzz/regressions/quote-inside-a-flow-plain-scalar). Quoted scalars still hide
  // their brackets.
  expect_error("output:\n  fields: {every: 0, at_end: tru\"}\n,\n",
               {"case.yaml:3:1: expected a `key: value` line"});
  expect_error("name: {a: \"x}\"\n,\n", {"case.yaml:"});
  expect_error("run: {steps: 3, note: \"a}, b\"}\n", {"case.yaml:1:17: run.note: unknown key"});
}

TEST(Config, MissingFileNamesTheFile) {
  try {
    eddy::config::load_file("/nonexistent/dir/cavity.yaml");
    FAIL() << "no error";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/cavity.yaml: cannot open config file"),
              std::string::npos)
        << e.what();
  }
  try {
    eddy::config::load_file("/tmp");
    FAIL() << "no error";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp: is a directory"), std::string::npos) << e.what();
  }
}

TEST(Config, LoadFileReadsFileAndUsesItsNameInMessages) {
  const std::string path = testing::TempDir() + "eddy_test_config.yaml";
  {
    std::ofstream out(path);
    out << "run:\n  steps: 7\nnumerics:\n  collision: xyz\n";
  }
  try {
    eddy::config::load_file(path);
    FAIL() << "no error";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4:14: numerics.collision: 'xyz' is not one of bgk, trt"),
              std::string::npos)
        << e.what();
  }
  {
    std::ofstream out(path);
    out << "run:\n  steps: 7\n";
  }
  const RunSpec s = eddy::config::load_file(path, {"run.steps=8"});
  EXPECT_EQ(s.run.steps, 8);
  EXPECT_EQ(s.source_file, path);
  std::remove(path.c_str());
}

TEST(Config, SolverAndDomain) {
  expect_error(kMinimal + "solver: fem\n", {"case.yaml:3:9: solver: 'fem' is not one of lbm, spectral"});
  expect_error(kMinimal + "domain:\n  cells: [8]\n",
               {"case.yaml:4:10: domain.cells: needs 2 or 3 entries", "got 1"});
  expect_error(kMinimal + "domain:\n  cells: [8, 8, 8, 8]\n", {"domain.cells: needs 2 or 3 entries"});
  expect_error(kMinimal + "domain:\n  cells: []\n", {"domain.cells: needs 2 or 3 entries", "got 0"});
  expect_error(kMinimal + "domain:\n  cells: [8, 0]\n",
               {"case.yaml:4:14: domain.cells[1]: must be >= 1, got 0"});
  expect_error(kMinimal + "domain:\n  cells: [8, 1]\n",
               {"case.yaml:4:14: domain.cells[1]: lbm needs at least 2 cells"});
  EXPECT_NO_THROW(load_text(kMinimal + "solver: spectral\ndomain:\n  cells: [8, 1]\n", "x.yaml"));
  expect_error(kMinimal + "domain:\n  length: 0\n", {"case.yaml:4:11: domain.length: must be > 0, got 0"});
  expect_error(kMinimal + "domain:\n  length: [1, -2]\n",
               {"case.yaml:4:15: domain.length[1]: must be > 0, got -2"});
  expect_error(kMinimal + "domain:\n  length: [1, 2, 3]\n",
               {"case.yaml:4:11: domain.length: needs one value or one per dimension (2), got 3"});
}

TEST(Config, LengthScalarIsNormalisedToOnePerDimension) {
  const RunSpec s3 = load_text(kMinimal + "domain:\n  cells: [16, 16, 32]\n  length: 2.5\n", "x.yaml");
  EXPECT_EQ(s3.domain.length, (std::vector<double>{2.5, 2.5, 2.5}));
  const RunSpec l1 = load_text(kMinimal + "domain:\n  length: [3]\n", "x.yaml");
  EXPECT_EQ(l1.domain.length, (std::vector<double>{3.0, 3.0}));
  const RunSpec l2 = load_text(kMinimal + "domain:\n  length: [1, 0.5]\n", "x.yaml");
  EXPECT_EQ(l2.domain.length, (std::vector<double>{1.0, 0.5}));
}

TEST(Config, Physics) {
  expect_error(kMinimal + "physics:\n  reynolds: 0\n",
               {"case.yaml:4:13: physics.reynolds: must be > 0, got 0"});
  expect_error(kMinimal + "physics:\n  velocity: -1\n", {"case.yaml:4:13: physics.velocity: must be > 0"});
  expect_error(kMinimal + "physics:\n  density: 0\n", {"physics.density: must be > 0"});
  expect_error(kMinimal + "physics:\n  reference_length: -0.1\n",
               {"physics.reference_length: must be >= 0, got -0.1"});
}

TEST(Config, Forcing) {
  const std::string spectral =
      kMinimal + "solver: spectral\ndomain:\n  cells: [32, 32]\n  length: 6.283185307179586\n";
  expect_error(kMinimal + "physics:\n  forcing:\n    type: kolmogorov\n",
               {"physics.forcing.type", "solver spectral only"});
  expect_error(spectral + "physics:\n  forcing:\n    type: shaker\n",
               {"physics.forcing.type", "none", "kolmogorov", "band_limited"});
  expect_error(spectral + "physics:\n  forcing:\n    type: kolmogorov\n    amplitude: 0\n",
               {"physics.forcing.amplitude: must be > 0"});
  expect_error(spectral + "physics:\n  forcing:\n    type: band_limited\n    band: [3, 1]\n",
               {"physics.forcing.band", "k_a < k_b"});
  expect_error(spectral + "physics:\n  forcing:\n    type: band_limited\n    band: [1]\n",
               {"physics.forcing.band", "two wave numbers"});
  expect_error(spectral + "physics:\n  forcing:\n    type: band_limited\n    injection_rate: -1\n",
               {"physics.forcing.injection_rate: must be > 0"});
  const RunSpec s =
      load_text(spectral + "physics:\n  forcing:\n    type: kolmogorov\n    wavenumber: 4\n", "c.yaml");
  EXPECT_EQ(s.physics.forcing.type, "kolmogorov");
  EXPECT_EQ(s.physics.forcing.wavenumber, 4.0);
  EXPECT_EQ(s.physics.forcing.band, (std::vector<double>{0.5, 2.5}));
}

TEST(Config, Numerics) {
  expect_error(kMinimal + "solver: spectral\nnumerics:\n  precision: fp32/fp16\n",
               {"case.yaml:5:14: numerics.precision: 'fp32/fp16' is only available with solver lbm"});
  EXPECT_EQ(load_text(kMinimal + "numerics:\n  precision: fp32/fp16\n", "x.yaml").numerics.precision,
            "fp32/fp16");
  expect_error(kMinimal + "numerics:\n  lattice: D3Q15\n",
               {"numerics.lattice: 'D3Q15' is not one of auto, D2Q9, D3Q19, D3Q27"});
  EXPECT_EQ(load_text(kMinimal + "domain:\n  cells: [8, 8, 8]\n", "x.yaml").numerics.lattice, "D3Q19");
  EXPECT_EQ(load_text(kMinimal + "domain:\n  cells: [8, 8, 8]\nnumerics:\n  lattice: D3Q27\n", "x.yaml")
                .numerics.lattice,
            "D3Q27");
  expect_error(kMinimal + "numerics:\n  collision: mrt\n",
               {"numerics.collision: 'mrt' is not one of bgk, trt"});
  // numerics.storage: LBM only; what moments works with is tests/unit/test_solver_rules.cpp's.
  EXPECT_EQ(load_text(kMinimal, "x.yaml").numerics.storage, "populations");
  EXPECT_EQ(load_text(kMinimal + "numerics:\n  collision: regularized\n  storage: moments\n", "x.yaml")
                .numerics.storage,
            "moments");
  EXPECT_EQ(load_text(kMinimal, "x.yaml", {"numerics.storage=moments"}).numerics.storage, "moments");
  expect_error(kMinimal + "numerics:\n  storage: moment\n",
               {"case.yaml:4:12: numerics.storage: 'moment' is not one of populations, moments"});
  expect_error(
      kMinimal + "solver: spectral\nnumerics:\n  storage: moments\n",
      {"case.yaml:5:12: numerics.storage: 'moments' is only available with solver lbm; use populations"});
  EXPECT_NO_THROW(load_text(kMinimal + "solver: spectral\nnumerics:\n  storage: populations\n", "x.yaml"));
  expect_error(kMinimal + "numerics:\n  lattice_velocity: 0\n",
               {"numerics.lattice_velocity: must be in (0, 1), got 0"});
  expect_error(kMinimal + "numerics:\n  lattice_velocity: 1\n",
               {"numerics.lattice_velocity: must be in (0, 1)"});
  expect_error(kMinimal + "numerics:\n  max_mach: 0\n", {"numerics.max_mach: must be in (0, 1], got 0"});
  expect_error(kMinimal + "numerics:\n  max_mach: 1.5\n", {"numerics.max_mach: must be in (0, 1]"});
  EXPECT_NO_THROW(load_text(kMinimal + "numerics:\n  max_mach: 1\n", "x.yaml"));
}

TEST(Config, Boundaries) {
  expect_error(kMinimal + "boundaries:\n  y_max:\n    type: lid\n",
               {"case.yaml:5:11: boundaries.y_max.type: 'lid' is not one of wall, moving_wall, periodic"});
  expect_error(kMinimal + "boundaries:\n  x_min:\n    type: periodic\n",
               {"case.yaml:5:11: boundaries.x_min.type: 'periodic' must be paired, but boundaries.x_max.type "
                "is 'wall'"});
  expect_error(kMinimal + "boundaries:\n  y_max:\n    type: periodic\n",
               {"boundaries.y_max.type: 'periodic' must be paired, but boundaries.y_min.type"});
  expect_error(kMinimal + "boundaries:\n  y_max:\n    type: moving_wall\n",
               {"case.yaml:5:11: boundaries.y_max.type: a moving_wall needs boundaries.y_max.velocity with "
                "one entry per "
                "dimension (2), got 0"});
  expect_error(kMinimal + "boundaries:\n  y_max:\n    type: moving_wall\n    velocity: [1, 0, 0]\n",
               {"case.yaml:6:15: boundaries.y_max.velocity: a moving_wall needs", "got 3"});
  const RunSpec lid =
      load_text(kMinimal + "boundaries:\n  y_max:\n    type: moving_wall\n    velocity: [1, 0]\n", "x.yaml");
  EXPECT_EQ(lid.boundaries.y_max.velocity, (std::vector<double>{1.0, 0.0}));
  const RunSpec per =
      load_text(kMinimal + "boundaries:\n  x_min: {type: periodic}\n  x_max: {type: periodic}\n", "x.yaml");
  EXPECT_EQ(per.boundaries.x_max.type, "periodic");
  // z faces are ignored in 2D, but their type is still checked.
  EXPECT_NO_THROW(load_text(
      kMinimal + "boundaries:\n  z_min: {type: periodic}\n  z_max: {type: moving_wall}\n", "x.yaml"));
  expect_error(kMinimal + "boundaries:\n  z_min: {type: open}\n",
               {"boundaries.z_min.type: 'open' is not one of"});
  expect_error(kMinimal + "domain:\n  cells: [8, 8, 8]\nboundaries:\n  z_min: {type: periodic}\n",
               {"case.yaml:6:17: boundaries.z_min.type: 'periodic' must be paired"});
  // Spectral: every face periodic, whatever the file says.
  const RunSpec sp =
      load_text(kMinimal + "solver: spectral\nboundaries:\n  x_min: {type: moving_wall}\n", "x.yaml");
  EXPECT_EQ(sp.boundaries.x_min.type, "periodic");
  EXPECT_EQ(sp.boundaries.z_max.type, "periodic");
}

TEST(Config, InitialOutputRunParallelValidationName) {
  expect_error(kMinimal + "initial:\n  type: vortex\n",
               {"case.yaml:4:9: initial.type: 'vortex' is not one of rest, taylor_green"});
  expect_error(kMinimal + "initial:\n  amplitude: -1\n", {"initial.amplitude: must be >= 0"});
  expect_error(kMinimal + "output:\n  checkpoint:\n    keep: 0\n",
               {"case.yaml:5:11: output.checkpoint.keep: must be >= 1, got 0"});
  expect_error("run:\n  steps: 0\n  end_time: 0\n",
               {"case.yaml:3:13: run.end_time: neither run.end_time nor run.steps is > 0"});
  expect_error("name: x\n", {"case.yaml: run.steps: neither run.end_time nor run.steps is > 0"});
  expect_error("run:\n  steps: -3\n", {"case.yaml:2:10: run.steps: must be >= 0, got -3"});
  expect_error("run:\n  end_time: -1\n", {"run.end_time: must be >= 0"});
  EXPECT_EQ(load_text("run:\n  end_time: 2.5\n", "x.yaml").run.end_time, 2.5);
  expect_error(kMinimal + "  steady:\n    tolerance: -1\n",
               {"case.yaml:4:16: run.steady.tolerance: must be >= 0"});
  expect_error(kMinimal + "  steady:\n    check_every: 0\n", {"run.steady.check_every: must be >= 1"});
  expect_error(kMinimal + "  max_wall_time: -5\n", {"case.yaml:3:18: run.max_wall_time: must be >= 0"});
  expect_error(kMinimal + "parallel:\n  overlap: sometimes\n", {"parallel.overlap: expected true or false"});
  expect_error(kMinimal + "parallel:\n  comm: mpich\n",
               {"case.yaml:4:9: parallel.comm: 'mpich' is not one of mpi, mpi-gpu, nccl, peer, auto"});
  expect_error(kMinimal + "parallel:\n  ranks: [2, 2, 2]\n",
               {"case.yaml:4:10: parallel.ranks: needs one entry per dimension (2) or none"});
  expect_error(kMinimal + "parallel:\n  ranks: [2, 0]\n",
               {"case.yaml:4:14: parallel.ranks[1]: must be >= 1, got 0"});
  EXPECT_EQ(load_text(kMinimal + "parallel:\n  ranks: [2, 1]\n  comm: nccl\n", "x.yaml").parallel.ranks,
            (std::vector<long>{2, 1}));
  expect_error(kMinimal + "validation:\n  reference: ghia\n",
               {"case.yaml:4:14: validation.reference: 'ghia' is not one of none", "ghia1982", "taylor_green",
                "tgv_re1600", "kolmogorov"});
  expect_error(kMinimal + "name: my run\n", {"case.yaml:3:7: name: 'my run' is not a valid run name"});
  expect_error(kMinimal + "name: ../up\n", {"name: '../up' is not a valid run name"});
  expect_error(kMinimal + "name: ..\n", {"name: '..' is not a valid run name"});
  expect_error(kMinimal + "name: \"\"\n", {"name: '' is not a valid run name"});
  EXPECT_EQ(load_text(kMinimal + "name: cavity-2d_Re1000.v2\n", "x.yaml").name, "cavity-2d_Re1000.v2");
}

TEST(Config, Schedules) {
  const RunSpec s = load_text(kMinimal + R"(output:
  fields:
    every: 0.5t
  diagnostics:
    every: 250
  checkpoint:
    every: 0
)",
                              "x.yaml");
  EXPECT_EQ(s.output.fields.every.steps, 0);
  EXPECT_EQ(s.output.fields.every.time, 0.5);
  EXPECT_EQ(s.output.diagnostics.every.steps, 250);
  EXPECT_EQ(s.output.diagnostics.every.time, 0.0);
  EXPECT_FALSE(s.output.checkpoint.every.enabled());
  EXPECT_NE(s.resolved_yaml.find("    every: 0.5t\n"), std::string::npos) << s.resolved_yaml;
  EXPECT_NE(s.resolved_yaml.find("    every: 250\n"), std::string::npos) << s.resolved_yaml;

  EXPECT_EQ(load_text(kMinimal + "output:\n  fields:\n    every: 1e-3t\n", "x.yaml").output.fields.every.time,
            1e-3);
  EXPECT_EQ(
      load_text(kMinimal + "output:\n  fields:\n    every: \"2t\"\n", "x.yaml").output.fields.every.time,
      2.0);
  EXPECT_FALSE(
      load_text(kMinimal + "output:\n  fields:\n    every: 0t\n", "x.yaml").output.fields.every.enabled());
  for (const char* bad : {"0.5", "abc", "t", "xt", "[1]", "1.5s"}) {
    expect_error(
        kMinimal + "output:\n  fields:\n    every: " + bad + "\n",
        {"case.yaml:5:12: output.fields.every: expected a step count (e.g. 100) or a time with suffix t"});
  }
  expect_error(kMinimal + "output:\n  checkpoint:\n    every: -1\n",
               {"case.yaml:5:12: output.checkpoint.every: must be >= 0"});
  expect_error(kMinimal + "output:\n  diagnostics:\n    every: -0.5t\n",
               {"output.diagnostics.every: must be >= 0"});
}

TEST(Config, SetOverridesScalarListAndNestedKeys) {
  const RunSpec s =
      load_text(kMinimal + "numerics:\n  precision: fp64\n", "x.yaml",
                {"numerics.precision=fp32", "domain.cells=[64,32]", "output.checkpoint.every=0.25t",
                 "boundaries.y_max.type=moving_wall", "boundaries.y_max.velocity=[1, 0]",
                 "run.steady.tolerance=1e-6", "name=sweep_1", " run.steps = 20"});
  EXPECT_EQ(s.numerics.precision, "fp32");
  EXPECT_EQ(s.domain.cells, (std::vector<long>{64, 32}));
  EXPECT_EQ(s.output.checkpoint.every.time, 0.25);
  EXPECT_EQ(s.boundaries.y_max.type, "moving_wall");
  EXPECT_EQ(s.boundaries.y_max.velocity, (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(s.run.steady.tolerance, 1e-6);
  EXPECT_EQ(s.name, "sweep_1");
  EXPECT_EQ(s.run.steps, 20);

  // Later overrides win; a whole section can be set as a YAML map; an empty file section is filled.
  const RunSpec t = load_text("run:\n  steps: 1\nphysics:\n", "x.yaml",
                              {"physics.reynolds=10", "physics.reynolds=20",
                               "boundaries.x_min={type: periodic}", "boundaries.x_max={type: periodic}"});
  EXPECT_EQ(t.physics.reynolds, 20.0);
  EXPECT_EQ(t.boundaries.x_min.type, "periodic");
}

TEST(Config, SetErrorsNameTheOverride) {
  expect_error(
      kMinimal,
      {"--set numerics.precision=fp42: numerics.precision: 'fp42' is not one of fp64, fp32, fp32/fp16"},
      {"numerics.precision=fp42"});
  // Even when the file has the key, the message points at the override that replaced it.
  expect_error(kMinimal + "numerics:\n  precision: fp64\n",
               {"--set numerics.precision=fp42: numerics.precision"}, {"numerics.precision=fp42"});
  expect_error(kMinimal,
               {"--set numerics.precison=fp32: numerics.precison: unknown key; did you mean 'precision'?"},
               {"numerics.precison=fp32"});
  expect_error(kMinimal, {"--set numerix.precision=fp32: numerix: unknown key; did you mean 'numerics'?"},
               {"numerix.precision=fp32"});
  expect_error(kMinimal, {"--set numerics.precision: expected --set key.path=value"}, {"numerics.precision"});
  expect_error(kMinimal, {"--set =3: '' is not a key path"}, {"=3"});
  expect_error(kMinimal, {"--set a..b=3: 'a..b' is not a key path"}, {"a..b=3"});
  expect_error(kMinimal, {"--set domain.cells[0]=4: set a whole list instead"}, {"domain.cells[0]=4"});
  expect_error(kMinimal, {"--set domain.cells=[64,: the value is not valid YAML"}, {"domain.cells=[64,"});
  expect_error(kMinimal + "solver: lbm\n", {"--set solver.kind=x: solver is not a section"},
               {"solver.kind=x"});
  expect_error(kMinimal, {"--set solver.kind=x: solver: expected one of lbm, spectral, got a map"},
               {"solver.kind=x"});
  expect_error(kMinimal, {"--set domain.cells=[64, 0]: domain.cells[1]: must be >= 1"},
               {"domain.cells=[64, 0]"});
  expect_error(kMinimal, {"--set run.steps=1.5: run.steps: expected an integer"}, {"run.steps=1.5"});
  expect_error(kMinimal, {"--set boundaries.x_min={type: foo}: boundaries.x_min.type: 'foo' is not one of"},
               {"boundaries.x_min={type: foo}"});
  // Errors about keys not touched by --set still point into the file.
  expect_error(kMinimal + "physics:\n  reynolds: -1\n", {"case.yaml:4:13: physics.reynolds"},
               {"run.steps=5"});
}

TEST(Config, ToYamlRoundTrip) {
  const std::string yaml = R"(name: tgv.3d-lbm
solver: lbm
domain:
  cells: [32, 48, 64]
  length: [6.283185307179586, 1.0e-3, 0.1]
physics:
  reynolds: 1600
  velocity: 0.3333333333333333
  reference_length: 0.15915494309189535
numerics:
  precision: fp32/fp16
  lattice: D3Q27
  collision: trt
  lattice_velocity: 0.05
  trt_magic: 0.25
boundaries:
  x_min: {type: periodic}
  x_max: {type: periodic}
  y_min: {type: wall}
  y_max: {type: moving_wall, velocity: [0.1, 0, -0.2]}
  z_min: {type: periodic}
  z_max: {type: periodic}
initial:
  type: taylor_green
  amplitude: 1.5
output:
  dir: "out dir/with \"quotes\""
  fields: {every: 0.1t, at_end: false}
  diagnostics: {every: 10}
  checkpoint: {every: 1000, keep: 2}
run:
  end_time: 20
  steps: 123456789012
  steady: {tolerance: 1e-9, check_every: 50}
  max_wall_time: 3600
parallel:
  comm: nccl
  ranks: [1, 2, 2]
validation:
  reference: taylor_green
  file: refs/tgv.csv
)";
  const RunSpec a = load_text(yaml, "a.yaml");
  const std::string text = eddy::config::to_yaml(a);
  const RunSpec b = load_text(text, "b.yaml");
  EXPECT_TRUE(eddy::config::same_settings(a, b)) << text;
  EXPECT_EQ(eddy::config::to_yaml(b), text);
  EXPECT_EQ(b.resolved_yaml, text);

  // Field by field, so that a key missing from to_yaml cannot go unnoticed.
  EXPECT_EQ(b.name, "tgv.3d-lbm");
  EXPECT_EQ(b.domain.length, (std::vector<double>{6.283185307179586, 1.0e-3, 0.1}));
  EXPECT_EQ(b.physics.velocity, 1.0 / 3.0);
  EXPECT_EQ(b.physics.reference_length, 0.15915494309189535);
  EXPECT_EQ(b.numerics.precision, "fp32/fp16");
  EXPECT_EQ(b.numerics.lattice, "D3Q27");
  EXPECT_EQ(b.numerics.collision, "trt");
  EXPECT_EQ(b.numerics.trt_magic, 0.25);
  EXPECT_EQ(b.boundaries.y_max.velocity, (std::vector<double>{0.1, 0.0, -0.2}));
  EXPECT_EQ(b.initial.type, "taylor_green");
  EXPECT_EQ(b.initial.amplitude, 1.5);
  EXPECT_EQ(b.output.dir, "out dir/with \"quotes\"");
  EXPECT_EQ(b.output.fields.every.time, 0.1);
  EXPECT_FALSE(b.output.fields.at_end);
  EXPECT_EQ(b.output.checkpoint.every.steps, 1000);
  EXPECT_EQ(b.output.checkpoint.keep, 2);
  EXPECT_EQ(b.run.end_time, 20.0);
  EXPECT_EQ(b.run.steps, 123456789012L);
  EXPECT_EQ(b.run.steady.tolerance, 1e-9);
  EXPECT_EQ(b.run.steady.check_every, 50);
  EXPECT_EQ(b.run.max_wall_time, 3600.0);
  EXPECT_EQ(b.parallel.comm, "nccl");
  EXPECT_EQ(b.parallel.ranks, (std::vector<long>{1, 2, 2}));
  EXPECT_EQ(b.validation.reference, "taylor_green");
  EXPECT_EQ(b.validation.file, "refs/tgv.csv");

  // Floats are written with a '.' (so YAML 1.1 readers see floats too) and read back exactly.
  EXPECT_NE(text.find("  reynolds: 1600.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  tolerance: 1.0e-09\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  velocity: 0.3333333333333333\n"), std::string::npos) << text;
}

TEST(Config, SameSettingsSeesEveryDifference) {
  const RunSpec a = load_text(kMinimal, "x.yaml");
  RunSpec b = a;
  EXPECT_TRUE(eddy::config::same_settings(a, b));
  b.source_file = "other.yaml";  // not a config key
  EXPECT_TRUE(eddy::config::same_settings(a, b));
  b.numerics.trt_magic = std::nextafter(a.numerics.trt_magic, 1.0);
  EXPECT_FALSE(eddy::config::same_settings(a, b));
  b = a;
  b.boundaries.z_max.velocity = {0.0};
  EXPECT_FALSE(eddy::config::same_settings(a, b));
  b = a;
  b.output.diagnostics.every = {0, 1.0};
  EXPECT_FALSE(eddy::config::same_settings(a, b));
}

TEST(Config, EveryKeyOfTheResolvedYamlIsAccepted) {
  // Every line of the resolved config, given alone as an override, is accepted: no key is written that the
  // loader would refuse, and nested paths line up with the sections.
  const RunSpec s = load_text(kMinimal, "x.yaml");
  std::vector<std::string> path;
  std::size_t count = 0;
  std::size_t start = 0;
  while (start < s.resolved_yaml.size()) {
    const std::size_t end = s.resolved_yaml.find('\n', start);
    const std::string line = s.resolved_yaml.substr(start, end - start);
    start = end + 1;
    const std::size_t indent = line.find_first_not_of(' ') / 2;
    const std::size_t colon = line.find(':');
    path.resize(indent);
    path.push_back(line.substr(indent * 2, colon - indent * 2));
    if (colon + 1 == line.size()) continue;  // a section header
    std::string key;
    for (const std::string& p : path) key += (key.empty() ? "" : ".") + p;
    EXPECT_NO_THROW(load_text(kMinimal, "x.yaml", {key + "=" + line.substr(colon + 2)})) << key;
    ++count;
  }
  // 56 + 5 of physics.forcing + 12 of optimize + physics.body_force, numerics.les.{model,constant},
  // parallel.overlap, parallel.autotune + 3 open-face keys of each of the 6 faces (profile, ramp_time,
  // pressure) + 5 of geometry + validation.tolerance + output.writer + output.fields.{variables,precision}
  // + output.probes.{every, points, fields} + output.spectra.every + output.statistics.{every, start,
  // fields, average_over, allow_nonperiodic, per_cell, write_every} + output.slices +
  // numerics.max_first_cell_yplus + numerics.storage
  EXPECT_EQ(count, 119u);
}

TEST(Config, FieldVariablesAndPrecision) {
  const RunSpec d = load_text(kMinimal, "x.yaml");
  EXPECT_TRUE(d.output.fields.variables.empty());  // every field the solver writes
  EXPECT_EQ(d.output.fields.precision, "fp64");
  const RunSpec s = load_text(
      kMinimal + "output:\n  fields:\n    variables: [velocity, pressure]\n    precision: fp32\n", "x.yaml");
  EXPECT_EQ(s.output.fields.variables, (std::vector<std::string>{"velocity", "pressure"}));
  EXPECT_EQ(s.output.fields.precision, "fp32");
  // The resolved YAML reads back to the same settings.
  EXPECT_TRUE(eddy::config::same_settings(load_text(s.resolved_yaml, "resolved.yaml"), s));
  expect_error(kMinimal + "output:\n  fields:\n    variables: [velocity, q]\n",
               {"case.yaml:5:27: output.fields.variables[1]: 'q' is not one of velocity, vorticity, "
                "pressure, density"});
  expect_error(kMinimal + "output:\n  fields:\n    variables: [q_criterion]\n",
               {"output.fields.variables[0]: 'q_criterion' is not a field of solver lbm in 2D (3D only)",
                "use velocity, density, pressure, vorticity"});
  expect_error(kMinimal + "solver: spectral\noutput:\n  fields:\n    variables: [density]\n",
               {"output.fields.variables[0]: 'density' is not a field of solver spectral"});
  expect_error(kMinimal + "output:\n  fields:\n    variables: [velocity, velocity]\n",
               {"output.fields.variables[1]: 'velocity' is listed twice"});
  expect_error(kMinimal + "output:\n  fields:\n    variables: velocity\n",
               {"output.fields.variables: expected a list of names, each one of velocity"});
  expect_error(kMinimal + "output:\n  fields:\n    precision: fp16\n",
               {"output.fields.precision: 'fp16' is not one of fp64, fp32"});
}

/// vorticity (2D and 3D) and q_criterion (3D): fields of both solvers (the table of checks.cpp);
/// q_criterion refused, naming the key, what is valid and why, in a 2D run of either; the same table
/// serves the probes and the slices.
TEST(Config, VorticityAndQCriterionOfBothSolvers) {
  const std::vector<std::string> cube{"domain.cells=[8, 8, 8]", "domain.length=[1.0, 1.0, 1.0]"};
  for (const char* solver : {"spectral", "lbm"}) {
    std::vector<std::string> sets = cube;
    sets.push_back(std::string("solver=") + solver);
    sets.push_back("output.fields.variables=[velocity, q_criterion, vorticity]");
    EXPECT_EQ(error_of(kMinimal, sets), "(loaded)") << solver;
    sets.pop_back();
    for (const char* more :
         {"output.probes.every=2", "output.probes.points=[[0.5, 0.5, 0.5]]",
          "output.probes.fields=[q_criterion, vorticity]",
          "output.slices=[{axis: z, position: 0.5, every: 2, fields: [q_criterion, vorticity]}]"})
      sets.emplace_back(more);
    EXPECT_EQ(error_of(kMinimal, sets), "(loaded)") << solver;
  }
  EXPECT_EQ(error_of(kMinimal, {"output.fields.variables=[vorticity]", "output.probes.every=2",
                                "output.probes.points=[[0.5, 0.5]]", "output.probes.fields=[vorticity]"}),
            "(loaded)");
  expect_error(kMinimal,
               {"output.fields.variables[0]: 'q_criterion' is not a field of solver spectral in 2D (3D only)",
                "use velocity, vorticity"},
               {"solver=spectral", "output.fields.variables=[q_criterion]"});
  expect_error(kMinimal, {"output.probes.fields[0]", "'q_criterion' is not a field of solver spectral in 2D"},
               {"solver=spectral", "output.probes.every=2", "output.probes.points=[[0.5, 0.5]]",
                "output.probes.fields=[q_criterion]"});
  expect_error(kMinimal,
               {"output.fields.variables[1]: 'q_criterion' is not a field of solver lbm in 2D (3D only);",
                "use velocity, density, pressure, vorticity"},
               {"output.fields.variables=[velocity, q_criterion]"});
  expect_error(
      kMinimal, {"output.probes.fields[0]", "'q_criterion' is not a field of solver lbm in 2D"},
      {"output.probes.every=2", "output.probes.points=[[0.5, 0.5]]", "output.probes.fields=[q_criterion]"});
}

TEST(Config, ProbesAndSpectra) {
  // Off by default; points and fields as nested lists, kept exactly through the resolved YAML.
  const RunSpec off = load_text(kMinimal, "x.yaml");
  EXPECT_FALSE(off.output.probes.every.enabled());
  EXPECT_EQ(off.output.probes.fields, std::vector<std::string>{"velocity"});
  const std::string yaml =
      kMinimal +
      "output:\n  probes: {every: 0.5t, points: [[0.1, 0.2], [1.0, 0.0]], fields: [pressure, "
      "density]}\n";
  const RunSpec s = load_text(yaml, "x.yaml");
  EXPECT_EQ(s.output.probes.every.time, 0.5);
  EXPECT_EQ(s.output.probes.points, (std::vector<std::vector<double>>{{0.1, 0.2}, {1.0, 0.0}}));
  EXPECT_EQ(s.output.probes.fields, (std::vector<std::string>{"pressure", "density"}));
  EXPECT_TRUE(same_settings(load_text(s.resolved_yaml, "resolved.yaml"), s));
  EXPECT_NE(s.resolved_yaml.find("points: [[0.1, 0.2], [1.0, 0.0]]"), std::string::npos) << s.resolved_yaml;
  // Errors name the key with its line and column, and what would be valid.
  expect_error(yaml,
               {"case.yaml:4:", "output.probes.points[0][1]", "outside the domain", "[0, 0.1] m along y"},
               {"domain.length=[1.0, 0.1]"});
  expect_error(kMinimal + "output:\n  probes: {every: 1, points: [[0.5]]}\n",
               {"case.yaml:4:31:", "output.probes.points[0]", "one coordinate per dimension (2), got 1"});
  expect_error(kMinimal + "output:\n  probes: {every: 1, points: [[0.5, 0.5]], fields: [speed]}\n",
               {"output.probes.fields[0]", "'speed' is not one of velocity, pressure, density, vorticity"});
  expect_error(kMinimal + "output:\n  probes: {every: 1, points: []}\n",
               {"output.probes.points", "need at least one point"});
  expect_error(kMinimal, {"output.probes.points[0]", "expected a list of numbers"},
               {"output.probes.points=[1, 2]"});
  expect_error(kMinimal, {"output.probes.fields", "expected a list of names, each one of velocity"},
               {"output.probes.fields=velocity"});
  expect_error(kMinimal,
               {"output.spectra.every", "the LBM writes energy spectra of a periodic box",
                "boundaries.x_min.type is wall"},
               {"output.spectra.every=10"});
  expect_error(
      kMinimal,
      {"parallel.ranks", "output.spectra transforms the LBM velocity where the ranks hold it", "give [1, P]"},
      {"output.spectra.every=10", "parallel.ranks=[2, 1]", "boundaries.x_min.type=periodic",
       "boundaries.x_max.type=periodic", "boundaries.y_min.type=periodic", "boundaries.y_max.type=periodic"});
  EXPECT_EQ(
      error_of(kMinimal, {"solver=spectral", "output.spectra.every=10", "output.probes.every=2",
                          "output.probes.points=[[0.5, 0.5]]", "output.probes.fields=[velocity, vorticity]"}),
      "(loaded)");
  expect_error(
      kMinimal,
      {"output.probes.fields[0]", "'density' is not a field of solver spectral; use velocity, vorticity"},
      {"solver=spectral", "output.probes.every=2", "output.probes.points=[[0.5, 0.5]]",
       "output.probes.fields=[density]"});
}

TEST(Config, Statistics) {
  // Off by default; the keys as given, kept through the resolved YAML.
  const RunSpec off = load_text(kMinimal, "x.yaml");
  EXPECT_FALSE(off.output.statistics.every.enabled());
  EXPECT_EQ(off.output.statistics.fields, std::vector<std::string>{"velocity"});
  const std::vector<std::string> periodic_x{"boundaries.x_min.type=periodic",
                                            "boundaries.x_max.type=periodic"};
  std::vector<std::string> sets = periodic_x;
  for (const char* k : {"output.statistics.every=5", "output.statistics.start=0.5t",
                        "output.statistics.fields=[velocity, pressure, reynolds_stress]",
                        "output.statistics.average_over=[x]", "output.statistics.write_every=2"})
    sets.push_back(k);
  const RunSpec s = load_text(kMinimal, "x.yaml", sets);
  const eddy::config::StatisticsSpec& st = s.output.statistics;
  EXPECT_EQ(st.every.steps, 5);
  EXPECT_EQ(st.start.time, 0.5);
  EXPECT_EQ(st.fields, (std::vector<std::string>{"velocity", "pressure", "reynolds_stress"}));
  EXPECT_EQ(st.average_over, std::vector<std::string>{"x"});
  EXPECT_EQ(st.write_every.steps, 2);
  EXPECT_TRUE(same_settings(load_text(s.resolved_yaml, "resolved.yaml"), s));
  // Refusals name the key and what would be valid.
  expect_error(kMinimal,
               {"output.statistics.average_over[0]", "'y' is not periodic", "wall", "allow_nonperiodic"},
               {"output.statistics.every=5", "output.statistics.average_over=[y]"});
  EXPECT_EQ(error_of(kMinimal, {"output.statistics.every=5", "output.statistics.average_over=[y]",
                                "output.statistics.allow_nonperiodic=true"}),
            "(loaded)");
  expect_error(kMinimal, {"output.statistics.average_over", "names every direction"},
               {"output.statistics.every=5", "output.statistics.average_over=[x, y]",
                "output.statistics.allow_nonperiodic=true"});
  expect_error(kMinimal, {"output.statistics.average_over[1]", "'x' is listed twice"},
               {"output.statistics.every=5", "output.statistics.average_over=[x, x]",
                "output.statistics.allow_nonperiodic=true"});
  expect_error(kMinimal, {"output.statistics.average_over[0]", "'z' is not a direction of a 2D run"},
               {"output.statistics.every=5", "output.statistics.average_over=[z]"});
  expect_error(kMinimal,
               {"output.statistics.fields[1]", "'vorticity' is not accumulated by solver lbm",
                "velocity, pressure, density, reynolds_stress"},
               {"output.statistics.every=5", "output.statistics.fields=[velocity, vorticity]"});
  expect_error(kMinimal, {"output.statistics.fields[1]", "listed twice"},
               {"output.statistics.every=5", "output.statistics.fields=[velocity, velocity]"});
  expect_error(kMinimal, {"output.statistics.fields", "'speed' is not one of velocity"},
               {"output.statistics.every=5", "output.statistics.fields=[speed]"});
  expect_error(kMinimal, {"output.statistics.start", "step 11 is after run.steps = 10"},
               {"output.statistics.every=5", "output.statistics.start=11"});
  expect_error(kMinimal, {"output.statistics.start", "t = 2.0 s is not before run.end_time = 2.0 s"},
               {"run.steps=0", "run.end_time=2", "output.statistics.every=5", "output.statistics.start=2t"});
  expect_error(kMinimal, {"output.statistics.write_every", "no schedule"},
               {"output.statistics.write_every=5"});
  expect_error(kMinimal, {"output.statistics.fields[0]", "'pressure' is not accumulated by solver spectral"},
               {"solver=spectral", "output.statistics.every=5", "output.statistics.fields=[pressure]"});
  EXPECT_EQ(error_of(kMinimal, {"solver=spectral", "output.statistics.every=5",
                                "output.statistics.fields=[velocity, reynolds_stress, vorticity]",
                                "output.statistics.average_over=[y]"}),
            "(loaded)");
}

TEST(Config, OutputWriter) {
  EXPECT_EQ(load_text(kMinimal, "x.yaml").output.writer, "auto");
  for (const char* w : {"auto", "gather", "per_rank"})
    EXPECT_EQ(load_text(kMinimal, "x.yaml", {std::string("output.writer=") + w}).output.writer, w);
  expect_error(kMinimal, {"output.writer", "mpiio", "per_rank"}, {"output.writer=mpiio"});
  // collective needs a parallel HDF5: bad input (exit 2) at load time otherwise, naming the key.
  if (eddy::io::hdf5_is_parallel())
    EXPECT_EQ(error_of(kMinimal, {"output.writer=collective"}), "(loaded)");
  else
    expect_error(kMinimal,
                 {"output.writer", "'collective' needs a parallel HDF5", "auto, gather or per_rank"},
                 {"output.writer=collective"});
}

TEST(Config, GeometryBodiesAndOpenFaces) {
  const std::string yaml =
      "domain: {cells: [44, 8], length: [2.2, 0.4]}\n"
      "run: {steps: 10}\n"
      "boundaries:\n"
      "  x_min: {type: velocity_inlet, velocity: [0.3, 0.0], profile: parabolic, ramp_time: 1.5}\n"
      "  x_max: {type: pressure_outlet, pressure: 0.25}\n"
      "geometry:\n"
      "  bodies:\n"
      "    - type: cylinder\n"
      "      center: [0.2, 0.2]\n"
      "      radius: 0.05\n"
      "    - {type: box, lo: [1.0, 0.0], hi: [1.1, 0.1]}\n"
      "  wall: halfway\n"
      "  reference_velocity: 0.2\n"
      "  reference_length: 0.1\n";
  const RunSpec s = load_text(yaml, "g.yaml");
  ASSERT_EQ(s.geometry.bodies.size(), 2u);
  EXPECT_EQ(s.geometry.bodies[0].type, "cylinder");
  EXPECT_EQ(s.geometry.bodies[0].center, (std::vector<double>{0.2, 0.2}));
  EXPECT_EQ(s.geometry.bodies[1].hi, (std::vector<double>{1.1, 0.1}));
  EXPECT_EQ(s.geometry.wall, "halfway");
  EXPECT_EQ(s.boundaries.x_min.profile, "parabolic");
  EXPECT_EQ(s.boundaries.x_min.ramp_time, 1.5);
  EXPECT_EQ(s.boundaries.x_max.pressure, 0.25);
  // The resolved YAML reads back to the same settings; --set replaces the whole list.
  EXPECT_TRUE(eddy::config::same_settings(s, load_text(s.resolved_yaml, "resolved.yaml")));
  const RunSpec t =
      load_text(yaml, "g.yaml", {"geometry.bodies=[{type: sphere, center: [1, 0.2], radius: 0.1}]"});
  ASSERT_EQ(t.geometry.bodies.size(), 1u);
  EXPECT_EQ(t.geometry.bodies[0].type, "sphere");
  EXPECT_FALSE(eddy::config::same_settings(s, t));
  // Errors name the body and its key.
  expect_error(yaml + "  reference_area: -1\n", {"geometry.reference_area", ">= 0"});
  expect_error(yaml,
               {"--set geometry.bodies=", "geometry.bodies[0].colour", "unknown key",
                "valid keys in a body: type, center"},
               {"geometry.bodies=[{type: cylinder, center: [0.2, 0.2], radius: 0.05, colour: red}]"});
  expect_error(yaml, {"geometry.bodies[0].type", "'cone' is not one of cylinder, sphere, box"},
               {"geometry.bodies=[{type: cone}]"});
  expect_error(yaml, {"geometry.bodies[0].lo", "a box needs lo"},
               {"geometry.bodies=[{type: box, hi: [1, 1]}]"});
  expect_error(yaml, {"geometry.bodies[0].radius", "is not a key of a box"},
               {"geometry.bodies=[{type: box, lo: [0, 0], hi: [1, 0.1], radius: 1}]"});
  expect_error(yaml, {"geometry.bodies[0].center", "needs one entry per dimension"},
               {"geometry.bodies=[{type: sphere, center: [1], radius: 0.1}]"});
  expect_error(yaml, {"geometry.bodies[0]", "expected a body"}, {"geometry.bodies=[3]"});
  expect_error(yaml, {"geometry.bodies", "expected a list of bodies"}, {"geometry.bodies=3"});
  expect_error(yaml, {"boundaries.x_min.velocity", "a velocity_inlet needs"},
               {"boundaries.x_min.velocity=[0.3]"});
  expect_error(yaml, {"boundaries.x_min.profile", "uniform, parabolic"}, {"boundaries.x_min.profile=cosine"});
  expect_error(yaml, {"boundaries.x_max.type", "periodic", "must be paired"},
               {"boundaries.x_max.type=periodic"});
  expect_error(yaml, {"initial.type", "no face is a velocity_inlet"},
               {"initial.type=inflow", "boundaries.x_min.type=wall"});
  expect_error(
      "solver: spectral\nrun: {steps: 1}\ngeometry: {bodies: [{type: sphere, center: [0.5, 0.5], "
      "radius: 0.1}]}\n",
      {"geometry.bodies", "solver lbm only"});
}

}  // namespace
