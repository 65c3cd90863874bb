#pragma once
/// Exact running sums of profiles (output.statistics with `per_cell: false`): for each point of a profile
/// (a cell's coordinates along the directions not averaged over) and each slot of a MomentLayout (the
/// density deviation, the velocity, the products u_i u_j; no vorticity), the sum over the samples and the
/// cells of the point's line of trunc(v 2^64), an integer. Integers add in any order to the same sum, so
/// the totals are the same bits whatever the decomposition, the order of the threads, and whether a
/// sample was added inside the solver's step kernel (which reads the same populations: no extra memory
/// traffic but the adds, lbm::Solver::add_profile) or by a kernel of its own. A point's mean is the total
/// x 2^-64 / (samples x cells of a line), rounded once; the resolution 2^-64 ~ 5.4e-20 of a value is
/// far below FP64's rounding of the values themselves. Device memory: 6 x 8 bytes per point and slot.
/// Cost on an H200 (D3Q19 FP32 256^3, rho, u and u_i u_j averaged over x and z, a sample every step):
/// +101 % of the step, bound by the atomics (three per value and warp of 32 cells: 15.7 million a
/// step), against +165 % for a per-cell sample; 64 copies of the sums spread over the blocks took it to
/// +196 % (cases/benchmarks/results/2026-12-02g-h200). A block-wide reduction before the atomics (8 x
/// fewer) is the next step.
#include <cmath>
#include <vector>

#include "backend/backend.hpp"
#include "core/types.hpp"
#include "field/moments.hpp"

namespace eddy::field {

/// v as 128-bit fixed point with 64 fractional bits, trunc(v 2^64) (toward zero), in three limbs that
/// add without carries over up to 2^31 terms: bits 0-31 and 32-63 (unsigned) and the rest (signed,
/// two's complement). |v| >= 2^62 and NaN count as 0 (a run reaching them fails its health check).
EDDY_HD EDDY_INLINE void fixed_limbs(double v, long long (&l)[3]) {
  l[0] = l[1] = l[2] = 0;
  if (!(v > -4.6e18 && v < 4.6e18)) return;
  // |v| = whole + frac with frac = |v| - floor(|v|), exact for a positive double (not so v - floor(v) for
  // a tiny negative v, which rounds to 1), x 2^64 exact too, below 2^64.
  const double a = fabs(v), whole = floor(a);
  auto frac = static_cast<unsigned long long>((a - whole) * 18446744073709551616.0);
  auto hi = static_cast<long long>(whole);
  if (v < 0) {  // -(hi 2^64 + frac)
    hi = frac == 0 ? -hi : -hi - 1;
    frac = ~frac + 1;
  }
  l[0] = static_cast<long long>(frac & 0xffffffffull);
  l[1] = static_cast<long long>(frac >> 32);
  l[2] = hi;
}

/// A rank's profile sums as kernels add to them: entry e = bin x layout.count() + slot holds three limbs at
/// sample[3 e ...], the samples added since the last fold; interior cell (x, y, z) of the rank's block
/// adds to bin x stride[0] + y stride[1] + z stride[2].
struct ProfileView {
  long long* sample = nullptr;
  index_t stride[3] = {0, 0, 0};
  MomentLayout layout;
};

/// The device arrays behind a ProfileView and the folding of samples into totals.
class ProfileSums {
 public:
  ProfileSums() = default;
  /// Sums of `layout`'s slots (its vorticity must be 0) over a block of `extent` cells, averaged along the
  /// axes `averaged` (the others make the bins, x fastest).
  ProfileSums(const MomentLayout& layout, const Int3& extent, const bool (&averaged)[3]);

  const ProfileView& view() const { return view_; }
  index_t bins() const { return bins_; }
  /// Entries: bins() x the layout's slots.
  index_t entries() const { return bins_ * view_.layout.count(); }
  /// Add the samples taken since the last fold to the totals and clear them (on the device). Due before
  /// 2^31 cells' samples reach an entry; StatisticsOutput folds after every sample.
  void fold();
  /// The totals, three limbs per entry normalized: [0, 2^32), [0, 2^32), signed (value = l2 2^64 + l1 2^32
  /// + l0, in units of 2^-64). Folds first.
  std::vector<long long> totals();
  /// Replace the totals (three normalized limbs per entry); clears the samples.
  void set_totals(const std::vector<long long>& limbs);

 private:
  ProfileView view_;
  index_t bins_ = 0;
  backend::DeviceArray<long long> sample_, total_;
};

}  // namespace eddy::field
