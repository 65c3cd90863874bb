#pragma once
/// Kernel code of the profile sums (field/profile.hpp): one cell's sample added to its bin.
#include "backend/parallel.hpp"
#include "field/profile.hpp"

namespace eddy::field {

/// Values of one D-dimensional sample: the density deviation, the velocity, the products u_i u_j (i <= j).
template <int D>
constexpr int profile_values = 1 + D + D*(D + 1) / 2;

/// Add one sample of interior cell (x, y, z): the density deviation and the velocity (D = layout.dims
/// components), the values MomentView::add_flow takes. All of a sample's chunks go to the backend at
/// once (every value, the layout's or not: the target of those it lacks is -1), so that a warp of cells
/// of one bin adds them in one transposed reduction (backend::atomic_add_grouped).
template <int D>
EDDY_HD EDDY_INLINE void add_profile_sample(const ProfileView& v, index_t x, index_t y, index_t z,
                                            double drho, const double* u) {
  constexpr int values = profile_values<D>;
  const MomentLayout m = v.layout;
  long long* p = v.sample + 3 * (x * v.stride[0] + y * v.stride[1] + z * v.stride[2]) * m.count();
  int c[3 * values];  // indexed by constants once the loops unroll: registers, not local memory
  int chunks[3];
  fixed_chunks(drho, chunks);
  EDDY_UNROLL for (int j = 0; j < 3; ++j) c[j] = chunks[j];
  EDDY_UNROLL for (int i = 0; i < D; ++i) {
    fixed_chunks(u[i], chunks);
    EDDY_UNROLL for (int j = 0; j < 3; ++j) c[3 * (1 + i) + j] = chunks[j];
  }
  EDDY_UNROLL for (int i = 0; i < D; ++i) EDDY_UNROLL for (int j = i; j < D; ++j) {
    fixed_chunks(u[i] * u[j], chunks);
    const int k = 1 + D + i * D - i * (i - 1) / 2 + (j - i);  // the (i, j) product's value
    EDDY_UNROLL for (int h = 0; h < 3; ++h) c[3 * k + h] = chunks[h];
  }
  // Element e = 3 i + chunk of value i to entry 3 slot + chunk, slot the layout's for value i.
  const auto target = [m](int e) {
    const int i = e / 3, chunk = e - 3 * i;
    int slot = -1;
    if (i == 0)
      slot = m.density ? 0 : -1;
    else if (i <= D)
      slot = m.velocity ? m.velocity_slot() + i - 1 : -1;
    else
      slot = m.stress ? m.stress_slot() + i - 1 - D : -1;
    return slot < 0 ? -1 : 3 * slot + chunk;
  };
  backend::atomic_add_grouped(p, c, target);
}

}  // namespace eddy::field
