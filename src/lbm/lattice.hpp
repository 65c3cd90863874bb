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

/// A velocity set of q directions given as a table (Table::t[i] = c_i), kept as bit masks: bit i of px, py,
/// pz is set where c_i has +1 along x, y, z, of mx, my, mz where it has -1. c(i, a) reads no array: with
/// i and a known at compile time it folds to a constant, otherwise it is two shifts of immediates. A
/// table inside c() was built on the stack by the CUDA compiler wherever c() was inlined (228 bytes of
/// local stores each time in D3Q19).
template <class Table>
struct VelocitySet {
  static constexpr int q = Table::q;
  static constexpr unsigned mask(int a, int s) {
    unsigned m = 0;
    for (int i = 0; i < q; ++i)
      if (Table::t[i][a] == s) m |= 1u << i;
    return m;
  }
  static constexpr bool unit_components() {
    for (int i = 0; i < q; ++i)
      for (int a = 0; a < 3; ++a)
        if (Table::t[i][a] < -1 || Table::t[i][a] > 1) return false;
    return true;
  }
  static_assert(q <= 32 && unit_components(), "the masks hold up to 32 directions of components -1, 0, 1");
  static constexpr unsigned px = mask(0, 1), py = mask(1, 1), pz = mask(2, 1);
  static constexpr unsigned mx = mask(0, -1), my = mask(1, -1), mz = mask(2, -1);
  EDDY_HD EDDY_INLINE static constexpr int c(int i, int a) {
    const unsigned p = a == 0 ? px : a == 1 ? py : pz, m = a == 0 ? mx : a == 1 ? my : mz;
    return static_cast<int>((p >> i) & 1u) - static_cast<int>((m >> i) & 1u);
  }
};

struct D2Q9Table {
  static constexpr int q = 9;
  static constexpr int t[9][3] = {{0, 0, 0}, {1, 0, 0},   {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
                                  {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}};
};

struct D2Q9 : VelocitySet<D2Q9Table> {
  static constexpr int d = 2;
  static constexpr const char* name = "D2Q9";
  EDDY_HD EDDY_INLINE static constexpr double w(int i) {
    return i == 0 ? 4.0 / 9.0 : (i < 5 ? 1.0 / 9.0 : 1.0 / 36.0);
  }
};

struct D3Q19Table {
  static constexpr int q = 19;
  static constexpr int t[19][3] = {{0, 0, 0},   {1, 0, 0},  {-1, 0, 0},  {0, 1, 0},   {0, -1, 0},
                                   {0, 0, 1},   {0, 0, -1}, {1, 1, 0},   {-1, -1, 0}, {1, 0, 1},
                                   {-1, 0, -1}, {0, 1, 1},  {0, -1, -1}, {1, -1, 0},  {-1, 1, 0},
                                   {1, 0, -1},  {-1, 0, 1}, {0, 1, -1},  {0, -1, 1}};
};

struct D3Q19 : VelocitySet<D3Q19Table> {
  static constexpr int d = 3;
  static constexpr const char* name = "D3Q19";
  EDDY_HD EDDY_INLINE static constexpr double w(int i) {
    return i == 0 ? 1.0 / 3.0 : (i < 7 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
};

struct D3Q27Table {
  static constexpr int q = 27;
  static constexpr int t[27][3] = {{0, 0, 0},   {1, 0, 0},  {-1, 0, 0},   {0, 1, 0},  {0, -1, 0},  {0, 0, 1},
                                   {0, 0, -1},  {1, 1, 0},  {-1, -1, 0},  {1, 0, 1},  {-1, 0, -1}, {0, 1, 1},
                                   {0, -1, -1}, {1, -1, 0}, {-1, 1, 0},   {1, 0, -1}, {-1, 0, 1},  {0, 1, -1},
                                   {0, -1, 1},  {1, 1, 1},  {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1},
                                   {-1, 1, -1}, {-1, 1, 1}, {1, -1, -1}};
};

struct D3Q27 : VelocitySet<D3Q27Table> {
  static constexpr int d = 3;
  static constexpr const char* name = "D3Q27";
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
