#include "spectral/slab_fft.hpp"

#include <algorithm>

namespace eddy::spectral {

using backend::FftKind;
using backend::FftLayout;
using backend::FftPlan;

template <class T>
SlabFft<T>::SlabFft(const Grid& g, field::SlabExchange& exchange) : g_(g), ex_(exchange) {
  real_stride_ = padded_stride(g.points());
  complex_stride_ = padded_stride(g.modes());
  FftLayout whole;  // r2c shape of one field: 3D (nz, ny, nx), 2D (ny, nx)
  if (g.dims == 3)
    whole.n = {g.n[2], g.n[1], g.n[0]};
  else
    whole.n = {g.n[1], g.n[0]};
  if (ex_.ranks() == 1) {
    r2c_.emplace(FftKind::r2c, whole);
    c2r_.emplace(FftKind::c2r, whole);
  } else {
    FftLayout planes;  // the local a-planes: 3D (ny, nx) x na_local, 2D (nx) x na_local
    planes.n.assign(whole.n.begin() + 1, whole.n.end());
    planes.batch = g.na_local;
    r2c_.emplace(FftKind::r2c, planes);
    c2r_.emplace(FftKind::c2r, planes);
    FftLayout along_a;  // 1D along a over the local (b, c) columns of [a][b_local][c]
    along_a.n = {g.na};
    along_a.batch = g.nb_local * g.nc;
    along_a.stride = g.nb_local * g.nc;
    along_a.in_dist = along_a.out_dist = 1;
    along_a_fwd_.emplace(FftKind::c2c_forward, along_a);
    along_a_bwd_.emplace(FftKind::c2c_backward, along_a);
    tmp_stride_ = padded_stride(g.na_local * g.nb * g.nc);
  }
  std::size_t work = 0;
  for (auto* p : {&r2c_, &c2r_, &along_a_fwd_, &along_a_bwd_})
    if (*p) work = std::max(work, (*p)->work_bytes());
  if (work > 0) {
    work_.resize(work);
    for (auto* p : {&r2c_, &c2r_, &along_a_fwd_, &along_a_bwd_})
      if (*p) (*p)->set_work_area(work_.data());
  }
}

template <class T>
void SlabFft<T>::reserve_tmp(int fields) {
  const std::size_t need = static_cast<std::size_t>(tmp_stride_ * fields);
  if (tmp_.size() < need) tmp_.resize(need);
}

template <class T>
void SlabFft<T>::forward(const T* phys, C* spec, int fields) {
  if (ex_.ranks() == 1) {
    for (int f = 0; f < fields; ++f) r2c_->execute(phys + f * real_stride_, spec + f * complex_stride_);
    return;
  }
  reserve_tmp(fields);
  for (int f = 0; f < fields; ++f) r2c_->execute(phys + f * real_stride_, tmp_.data() + f * tmp_stride_);
  const field::SlabShape s{g_.na, g_.nb, g_.nc, sizeof(C)};
  ex_.a_to_b(s, tmp_.data(), tmp_stride_, spec, complex_stride_, fields);
  for (int f = 0; f < fields; ++f) along_a_fwd_->execute(spec + f * complex_stride_);
}

template <class T>
void SlabFft<T>::backward(C* spec, T* phys, int fields) {
  if (ex_.ranks() == 1) {
    for (int f = 0; f < fields; ++f) c2r_->execute(spec + f * complex_stride_, phys + f * real_stride_);
    return;
  }
  reserve_tmp(fields);
  for (int f = 0; f < fields; ++f) along_a_bwd_->execute(spec + f * complex_stride_);
  const field::SlabShape s{g_.na, g_.nb, g_.nc, sizeof(C)};
  ex_.b_to_a(s, spec, complex_stride_, tmp_.data(), tmp_stride_, fields);
  for (int f = 0; f < fields; ++f) c2r_->execute(tmp_.data() + f * tmp_stride_, phys + f * real_stride_);
}

template class SlabFft<float>;
template class SlabFft<double>;

}  // namespace eddy::spectral
