#pragma once
/// Kernel code of the profile sums (field/profile.hpp): one cell's sample added to its bin.
#include "backend/parallel.hpp"
#include "field/profile.hpp"

namespace eddy::field {

/// Add one sample of interior cell (x, y, z): the density deviation and the velocity (layout.dims
/// components), the values MomentView::add_flow takes.
EDDY_HD EDDY_INLINE void add_profile_sample(const ProfileView& v, index_t x, index_t y, index_t z,
                                            double drho, const double* u) {
  const MomentLayout& m = v.layout;
  long long* p = v.sample + 3 * (x * v.stride[0] + y * v.stride[1] + z * v.stride[2]) * m.count();
  long long l[3];
  if (m.density) fixed_limbs(drho, l), backend::atomic_add_grouped(p, l), p += 3;
  if (m.velocity)
    for (int i = 0; i < m.dims; ++i) fixed_limbs(u[i], l), backend::atomic_add_grouped(p, l), p += 3;
  if (m.stress)
    for (int i = 0; i < m.dims; ++i)
      for (int j = i; j < m.dims; ++j) fixed_limbs(u[i] * u[j], l), backend::atomic_add_grouped(p, l), p += 3;
}

}  // namespace eddy::field
