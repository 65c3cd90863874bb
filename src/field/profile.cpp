#include "field/profile.hpp"

#include "backend/parallel.hpp"
#include "core/error.hpp"

namespace eddy::field {

ProfileSums::ProfileSums(const MomentLayout& layout, const Int3& extent, const bool (&averaged)[3]) {
  if (layout.vorticity != 0) throw Error("ProfileSums: vorticity is not summed into profiles");
  view_.layout = layout;
  bins_ = 1;
  for (std::size_t a = 0; a < 3; ++a) {
    view_.stride[a] = averaged[a] ? 0 : bins_;
    if (!averaged[a]) bins_ *= extent[a];
  }
  sample_.resize(static_cast<std::size_t>(3 * entries()));
  total_.resize(static_cast<std::size_t>(3 * entries()));
  view_.sample = sample_.data();
}

void ProfileSums::fold() {
  long long* s = sample_.data();
  long long* t = total_.data();
  backend::parallel_for("field::profile_fold", entries(), [=] EDDY_DEVICE(index_t e) {
    long long* a = s + 3 * e;
    long long* b = t + 3 * e;
    fold_chunks(a, b);
    a[0] = a[1] = a[2] = 0;
  });
}

std::vector<long long> ProfileSums::totals() {
  fold();
  return total_.to_host();
}

void ProfileSums::set_totals(const std::vector<long long>& limbs) {
  if (limbs.size() != total_.size()) throw Error("ProfileSums::set_totals: wrong size");
  total_.from_host(limbs);
  sample_.resize(sample_.size());
  view_.sample = sample_.data();
}

}  // namespace eddy::field
