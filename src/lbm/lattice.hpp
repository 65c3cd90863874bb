#pragma once
/// Velocity sets D2Q9, D3Q19, D3Q27 as constexpr tables.
///
/// Directions come in opposite pairs: 0 is the rest population, then (1,2), (3,4), ... with
/// c[2k] = -c[2k-1], so opposite(i) is arithmetic and needs no table. Weights from Qian, d'Humieres &
/// Lallemand (1992). The speed of sound is c_s^2 = 1/3 for all three.
#include "backend/macros.hpp"
#include "core/names.hpp"

namespace eddy::lbm {

/// Opposite direction under the pair ordering above.
EDDY_HD EDDY_INLINE constexpr int opposite(int i) { return i == 0 ? 0 : ((i & 1) ? i + 1 : i - 1); }

struct D2Q9 {
  static constexpr int d = 2, q = 9;
  static constexpr const char* name = "D2Q9";
  EDDY_HD EDDY_INLINE static constexpr int c(int i, int a) {
    constexpr int t[9][3] = {{0, 0, 0}, {1, 0, 0},   {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
                             {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}};
    return t[i][a];
  }
  EDDY_HD EDDY_INLINE static constexpr double w(int i) {
    return i == 0 ? 4.0 / 9.0 : (i < 5 ? 1.0 / 9.0 : 1.0 / 36.0);
  }
};

struct D3Q19 {
  static constexpr int d = 3, q = 19;
  static constexpr const char* name = "D3Q19";
  EDDY_HD EDDY_INLINE static constexpr int c(int i, int a) {
    constexpr int t[19][3] = {{0, 0, 0},   {1, 0, 0},  {-1, 0, 0},  {0, 1, 0},   {0, -1, 0},
                              {0, 0, 1},   {0, 0, -1}, {1, 1, 0},   {-1, -1, 0}, {1, 0, 1},
                              {-1, 0, -1}, {0, 1, 1},  {0, -1, -1}, {1, -1, 0},  {-1, 1, 0},
                              {1, 0, -1},  {-1, 0, 1}, {0, 1, -1},  {0, -1, 1}};
    return t[i][a];
  }
  EDDY_HD EDDY_INLINE static constexpr double w(int i) {
    return i == 0 ? 1.0 / 3.0 : (i < 7 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
};

struct D3Q27 {
  static constexpr int d = 3, q = 27;
  static constexpr const char* name = "D3Q27";
  EDDY_HD EDDY_INLINE static constexpr int c(int i, int a) {
    constexpr int t[27][3] = {{0, 0, 0},   {1, 0, 0},  {-1, 0, 0},   {0, 1, 0},  {0, -1, 0},  {0, 0, 1},
                              {0, 0, -1},  {1, 1, 0},  {-1, -1, 0},  {1, 0, 1},  {-1, 0, -1}, {0, 1, 1},
                              {0, -1, -1}, {1, -1, 0}, {-1, 1, 0},   {1, 0, -1}, {-1, 0, 1},  {0, 1, -1},
                              {0, -1, 1},  {1, 1, 1},  {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1},
                              {-1, 1, -1}, {-1, 1, 1}, {1, -1, -1}};
    return t[i][a];
  }
  EDDY_HD EDDY_INLINE static constexpr double w(int i) {
    return i == 0 ? 8.0 / 27.0 : (i < 7 ? 2.0 / 27.0 : (i < 19 ? 1.0 / 54.0 : 1.0 / 216.0));
  }
};

/// numerics.lattice: the velocity sets above.
enum class Lattice { d2q9, d3q19, d3q27 };

/// The words of `Lattice`, by enumerator.
inline constexpr Names<Lattice, 3> lattice_names{{D2Q9::name, D3Q19::name, D3Q27::name}};

/// The dimension of a lattice's velocities: a run's domain must have as many.
constexpr int dimensions(Lattice l) {
  constexpr int d[] = {D2Q9::d, D3Q19::d, D3Q27::d};
  return d[static_cast<int>(l)];
}

}  // namespace eddy::lbm
