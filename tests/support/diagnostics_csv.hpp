#pragma once
// Reading back a run's diagnostics.csv (written by io/hdf5/diagnostics_csv.hpp) in the regression tests.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace eddy::test {

/// Column `name` of the diagnostics.csv in `dir`, row by row; empty when the file or the column is missing.
inline std::vector<double> diagnostics_column(const std::string& dir, const std::string& name) {
  std::ifstream in(dir + "/diagnostics.csv");
  std::string line, cell;
  std::getline(in, line);
  std::istringstream header(line);
  int column = -1;
  for (int k = 0; std::getline(header, cell, ','); ++k)
    if (cell == name) column = k;
  std::vector<double> values;
  while (column >= 0 && std::getline(in, line)) {
    std::istringstream row(line);
    for (int k = 0; std::getline(row, cell, ','); ++k)
      if (k == column) values.push_back(std::stod(cell));
  }
  return values;
}

}  // namespace eddy::test
