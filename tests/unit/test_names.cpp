// The words of the choices the solvers own (collision, storage, lattice, face kind, time stepper,
// dealiasing) are the words the schema accepts: a word the loader accepts and the solver cannot parse, or
// the reverse, fails here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/config/config.hpp"
#include "io/config/schema.hpp"
#include "lbm/lbm_solver.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy {
namespace {

std::vector<std::string> schema_words(const std::string& path) {
  config::RunSpec spec;
  for (const config::Field& f : config::fields(spec))
    if (f.path == path) return f.rule.one_of;
  ADD_FAILURE() << path << " is not a key of the schema";
  return {};
}

TEST(Names, SolverChoicesAreTheSchemasWords) {
  EXPECT_EQ(schema_words("numerics.collision"), lbm::collision_names.list());
  EXPECT_EQ(schema_words("numerics.storage"), lbm::storage_names.list());
  std::vector<std::string> lattices = lbm::lattice_names.list();
  lattices.insert(lattices.begin(), "auto");  // resolved by the loader from the dimensions
  EXPECT_EQ(schema_words("numerics.lattice"), lattices);
  for (const char* face : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
    EXPECT_EQ(schema_words(std::string("boundaries.") + face + ".type"), lbm::face_kind_names.list());
  EXPECT_EQ(schema_words("numerics.time_stepper"), spectral::stepper_names.list());
  EXPECT_EQ(schema_words("numerics.dealiasing"), spectral::dealiasing_names.list());
}

TEST(Names, ParseRoundTripsAndNamesTheKeyOnAnUnknownWord) {
  for (const std::string& w : lbm::collision_names.list())
    EXPECT_EQ(lbm::collision_names(lbm::collision_names.parse(w, "numerics.collision")), w);
  EXPECT_EQ(lbm::collision_names.parse("trt", "k"), lbm::Collision::trt);
  try {
    lbm::collision_names.parse("mrt", "numerics.collision");
    FAIL() << "mrt parsed";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "numerics.collision: 'mrt' is not one of bgk, trt, regularized, kbc");
  }
}

}  // namespace
}  // namespace eddy
