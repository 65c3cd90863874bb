// output.slices: a list of maps (like geometry.bodies), its defaults, the resolved YAML round trip, the cell
// layer of a position, and every refusal naming the entry's key with its line and column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/config/config.hpp"
#include "tests/support/input_error.hpp"

namespace {

using eddy::config::load_text;
using eddy::config::RunSpec;

// A 3D box of 32 x 16 x 8 cells, 2 x 1 x 0.5 m: dx = dy = dz = 1/16 m.
const std::string k3d = "domain: {cells: [32, 16, 8], length: [2.0, 1.0, 0.5]}\nrun:\n  steps: 10\n";

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return eddy::test::input_error_of([&] { load_text(yaml, "case.yaml", sets); }, "(loaded)");
}

void expect_error(const std::string& yaml, std::initializer_list<std::string> parts,
                  const std::vector<std::string>& sets = {}) {
  eddy::test::expect_parts(error_of(yaml, sets), parts);
}

TEST(ConfigSlices, OffByDefaultAndLoadedAsListOfMaps) {
  EXPECT_TRUE(load_text(k3d, "x.yaml").output.slices.empty());
  const std::string yaml = k3d +
                           "output:\n"
                           "  slices:\n"
                           "    - {axis: z, position: 0.25, every: 0.1t, fields: [velocity, pressure]}\n"
                           "    - {axis: x, position: 2.0, every: 5}\n";
  const RunSpec s = load_text(yaml, "x.yaml");
  ASSERT_EQ(s.output.slices.size(), 2u);
  const auto& z = s.output.slices[0];
  const auto& x = s.output.slices[1];
  EXPECT_EQ(z.axis, "z");
  EXPECT_EQ(z.position, 0.25);
  EXPECT_EQ(z.every.time, 0.1);
  EXPECT_EQ(z.every.steps, 0);
  EXPECT_EQ(z.fields, (std::vector<std::string>{"velocity", "pressure"}));
  EXPECT_EQ(x.axis, "x");
  EXPECT_EQ(x.every.steps, 5);
  EXPECT_EQ(x.fields, std::vector<std::string>{"velocity"});  // the default
  // The layer containing the position: floor(position / dx), the upper face in the last layer.
  EXPECT_EQ(eddy::config::slice_axis(z), 2);
  EXPECT_EQ(eddy::config::slice_layer(s, z), 4);   // 0.25 / (1/16)
  EXPECT_EQ(eddy::config::slice_layer(s, x), 31);  // x = L: min(32, 31)
  // The resolved YAML prints every key of every slice and reads back to the same settings.
  EXPECT_NE(s.resolved_yaml.find("  slices: [{axis: z, position: 0.25, every: 0.1t, fields: [velocity, "
                                 "pressure]}, {axis: x, position: 2.0, every: 5, fields: [velocity]}]\n"),
            std::string::npos)
      << s.resolved_yaml;
  const RunSpec back = load_text(s.resolved_yaml, "resolved.yaml");
  EXPECT_TRUE(eddy::config::same_settings(back, s));
  RunSpec other = s;
  other.output.slices[1].position = 1.0;
  EXPECT_FALSE(eddy::config::same_settings(other, s));
  // --set takes the whole list, as for geometry.bodies.
  const RunSpec set = load_text(k3d, "x.yaml", {"output.slices=[{axis: y, position: 0.5, every: 3}]"});
  ASSERT_EQ(set.output.slices.size(), 1u);
  EXPECT_EQ(eddy::config::slice_layer(set, set.output.slices[0]), 8);
  // The spectral solver's fields.
  EXPECT_EQ(
      error_of(k3d, {"solver=spectral", "domain.length=6.283185307179586",
                     "output.slices=[{axis: z, position: 3.0, every: 2, fields: [velocity, vorticity]}]"}),
      "(loaded)");
}

TEST(ConfigSlices, BadInputNamesTheKey) {
  const std::string head = k3d + "output:\n  slices:\n";
  // position outside the box along the slice's axis (z spans [0, 0.5]), below 0, or missing
  expect_error(
      head + "    - {axis: z, position: 0.25, every: 5}\n    - {axis: z, position: 0.6, every: 5}\n",
      {"case.yaml:7:", "output.slices[1].position", "outside the domain", "z = 0.6 m", "[0, 0.5] m along z"});
  expect_error(head + "    - {axis: x, position: -0.1, every: 5}\n",
               {"output.slices[0].position", "outside the domain", "[0, 2] m along x"});
  expect_error(head + "    - {axis: y, every: 5}\n",
               {"case.yaml:6:7: output.slices[0]:", "needs a position", "[0, 1]"});
  // unknown axis, unknown key, unknown field, a field of the other solver, a field twice
  expect_error(head + "    - {axis: w, position: 0.1, every: 5}\n",
               {"case.yaml:6:14: output.slices[0].axis", "'w' is not one of x, y, z"});
  expect_error(
      head + "    - {axis: z, position: 0.1, every: 5, colour: red}\n",
      {"output.slices[0].colour", "unknown key; valid keys in a slice: axis, position, every, fields"});
  expect_error(
      head + "    - {axis: z, position: 0.1, every: 5, fields: [speed]}\n",
      {"output.slices[0].fields[0]", "'speed' is not one of velocity, pressure, density, vorticity"});
  expect_error(k3d +
                   "solver: spectral\noutput:\n  slices:\n    - {axis: z, position: 0.1, every: 5, fields: "
                   "[density]}\n",
               {"output.slices[0].fields[0]", "'density' is not a field of solver spectral",
                "use velocity, vorticity, q_criterion"});
  expect_error(head + "    - {axis: z, position: 0.1, every: 5, fields: [velocity, velocity]}\n",
               {"output.slices[0].fields[1]", "listed twice"});
  expect_error(head + "    - {axis: z, position: 0.1, every: 5, fields: []}\n",
               {"output.slices[0].fields", "needs at least one field"});
  // no schedule: every left out, or 0 (never)
  expect_error(head + "    - {axis: z, position: 0.1}\n",
               {"case.yaml:6:7: output.slices[0]:", "needs a schedule", "0.1t"});
  expect_error(head + "    - {axis: z, position: 0.1, every: 0}\n",
               {"output.slices[0].every", "needs a schedule"});
  expect_error(head + "    - {axis: z, position: 0.1, every: soon}\n",
               {"output.slices[0].every", "expected a step count"});
  // duplicate: the same axis and cell layer (0.1 and 0.12 are both in layer 1 of z), not the same
  // layer index on another axis
  expect_error(head + "    - {axis: z, position: 0.1, every: 5}\n    - {axis: x, position: 0.1, every: 5}\n" +
                   "    - {axis: z, position: 0.12, every: 7, fields: [density]}\n",
               {"case.yaml:8:", "output.slices[2].position", "same cell layer as output.slices[0]",
                "axis z, layer 1 of 8"});
  // shapes: not a list, an entry that is not a map
  expect_error(k3d, {"output.slices", "expected a list of slices"}, {"output.slices=z"});
  expect_error(k3d, {"output.slices[0]", "expected a slice: a map with keys axis, position"},
               {"output.slices=[z]"});
  // 2D: refused, whatever the axis
  for (const char* axis : {"x", "z"})
    expect_error(
        "run:\n  steps: 10\n",
        {"--set output.slices=", "output.slices[0].axis", "planes of a 3D run", "remove output.slices"},
        {std::string("output.slices=[{axis: ") + axis + ", position: 0.5, every: 5}]"});
}

}  // namespace
