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
/// Cost on an H200 (D3Q19 256^3, rho, u and u_i u_j averaged over x and z, a sample every step):
/// +8.9-9.4 % of the FP32 step, +80 % of the 16-bit one (whose odd step loses its register cap), against
/// +165 % for a per-cell sample (cases/benchmarks/results/2026-12-03-h200).
#include <cmath>
#include <vector>

#include "backend/backend.hpp"
#include "core/types.hpp"
#include "field/moments.hpp"

namespace eddy::field {

/// v as 128-bit fixed point with 64 fractional bits, X = trunc(v 2^64) (toward zero), in three chunks
/// X = c[2] 2^42 + c[1] 2^21 + c[0] with c[0], c[1] in [0, 2^21) and c[2] in [-2^26, 2^26) (two's
/// complement bits 0-20, 21-41, and the rest, signed), so that the chunks of 32 values add in 32 bits
/// (a warp's sum, backend::atomic_add_grouped) and those of 2^31 values in 64. |v| >= 16 and NaN count as
/// 0: no stable run reaches them (the density deviation and the velocity are far below 1 in lattice
/// units), and a run that does fails its health check.
EDDY_HD EDDY_INLINE void fixed_chunks(double v, int (&c)[3]) {
  c[0] = c[1] = c[2] = 0;
  if (!(v > -16.0 && v < 16.0)) return;
  // |v| = whole + frac with frac = |v| - floor(|v|), exact for a positive double (not so v - floor(v) for
  // a tiny negative v, which rounds to 1), x 2^64 exact too, below 2^64: X = hi 2^64 + lo.
  const double a = fabs(v), whole = floor(a);
  auto lo = static_cast<unsigned long long>((a - whole) * 18446744073709551616.0);
  auto hi = static_cast<int>(whole);
  if (v < 0) {  // -(hi 2^64 + lo)
    hi = lo == 0 ? -hi : -hi - 1;
    lo = ~lo + 1;
  }
  c[0] = static_cast<int>(lo & 0x1fffffull);
  c[1] = static_cast<int>((lo >> 21) & 0x1fffffull);
  c[2] = hi * (1 << 22) + static_cast<int>(lo >> 42);  // hi in [-16, 15]
}

/// Add chunk sums s (s[0] in [0, 2^57), |s[1]|, |s[2]| < 2^57: sums of fixed_chunks over up to 2^31
/// values) to normalized limbs t (t[0], t[1] in [0, 2^32), t[2] signed; value t[2] 2^64 + t[1] 2^32 +
/// t[0]), which stay normalized: exact 128-bit integer arithmetic in 64-bit pieces. With s[1] = h1 2^11
/// + l1 and s[2] = h2 2^22 + l2 (l1, l2 the low bits, non-negative), s[1] 2^21 = h1 2^32 + l1 2^21 and
/// s[2] 2^42 = h2 2^64 + l2 2^10 2^32. (>> of a negative number is arithmetic, as on every compiler
/// eddy builds with.)
EDDY_HD EDDY_INLINE void fold_chunks(const long long* s, long long* t) {
  using ull = unsigned long long;
  const long long l1 = s[1] & 0x7ff, h1 = s[1] >> 11, l2 = s[2] & 0x3fffff, h2 = s[2] >> 22;
  const ull lo = ull(t[0]) + ull(s[0]) + (ull(l1) << 21);                           // < 2^32 + 2^57 + 2^32
  const long long mid = t[1] + h1 + (l2 << 10) + static_cast<long long>(lo >> 32);  // |.| < 2^47
  t[0] = static_cast<long long>(lo & 0xffffffffull);
  t[1] = mid & 0xffffffffll;
  t[2] += h2 + (mid >> 32);
}

/// A rank's profile sums as kernels add to them: entry e = bin x layout.count() + slot holds at
/// sample[3 e + k] the sum of the chunks k (fixed_chunks) of the samples added since the last fold;
/// interior cell (x, y, z) of the rank's block adds to bin x stride[0] + y stride[1] + z stride[2].
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
  /// 2^31 cells' samples reach an entry (the chunk sums stay below 2^57); StatisticsOutput folds after
  /// every sample.
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
