#include "spectral/spectrum.hpp"

#include <algorithm>
#include <cmath>

#include "backend/parallel.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectrum_k.hpp"

namespace eddy::spectral {

Spectrum spectrum_shells(const Grid& g) {
  Spectrum sp;
  sp.dk = g.kf[0];
  double kk = 0;
  for (int d = 0; d < g.dims; ++d) {
    sp.dk = std::min(sp.dk, g.kf[d]);
    const double kd = g.kf[d] * double(g.n[d] / 2);
    kk += kd * kd;
  }
  const auto shells = static_cast<index_t>(std::sqrt(kk) / sp.dk + 0.5) + 1;
  for (index_t j = 0; j < shells; ++j) sp.k.push_back(double(j) * sp.dk);
  return sp;
}

namespace {

using C = backend::Complex<double>;

/// |u_hat|^2 / 2 of the `comps` velocity components of local mode m, with its Hermitian weight, times
/// `factor` (the square of the transforms' scale).
struct VelocityEnergy {
  const C* s;
  index_t cs;
  int comps;
  double factor;
  EDDY_HD double operator()(const Mode<double>& md, index_t m) const {
    double e = 0.0;
    for (int c = 0; c < comps; ++c) e += backend::norm2(s[m + c * cs]);
    return 0.5 * double(md.weight) * factor * e;
  }
};

}  // namespace

struct VelocitySpectrum::Impl {
  field::TransposeExchange& exchange;
  SlabFft<double> fft;
  Impl(const Grid& g, field::TransposeExchange& ex) : exchange(ex), fft(g, ex, false) {}
};

VelocitySpectrum::VelocitySpectrum(int dims, const Int3& cells, const Real3& length,
                                   field::TransposeExchange& exchange)
    : grid_(Grid::make(dims, cells, length, exchange)), impl_(std::make_unique<Impl>(grid_, exchange)) {}

VelocitySpectrum::~VelocitySpectrum() = default;

Spectrum VelocitySpectrum::compute(const double* u, index_t stride, double scale) {
  SlabFft<double>& fft = impl_->fft;
  const int comps = grid_.dims;
  const index_t rs = fft.real_stride(), cs = fft.complex_stride(), points = grid_.points();
  backend::DeviceArray<C> spec(static_cast<std::size_t>(comps * cs));
  // The forward transform reads the fields real_stride() apart: `u` itself where its stride is that (the
  // transform leaves its input alone), else a copy.
  backend::DeviceArray<double> copy;
  if (stride != rs) {
    copy.resize(static_cast<std::size_t>(comps * rs));
    double* p = copy.data();
    backend::parallel_for("spectral::velocity_spectrum_copy", points * comps, [=] EDDY_DEVICE(index_t i) {
      const index_t c = i / points, x = i - c * points;
      p[c * rs + x] = u[c * stride + x];
    });
  }
  fft.forward(stride != rs ? copy.data() : u, spec.data(), comps);
  // The transforms are unnormalised: scale / N times them are the velocity's Fourier coefficients.
  const double f = scale / double(grid_.total_points());
  return shell_spectrum<double>(grid_, VelocityEnergy{spec.data(), cs, comps, f * f}, impl_->exchange);
}

index_t VelocitySpectrum::stride() const { return impl_->fft.real_stride(); }

std::size_t VelocitySpectrum::bytes_held() const { return impl_->fft.bytes(); }

std::size_t VelocitySpectrum::bytes_per_call() const {
  return static_cast<std::size_t>(grid_.dims) * static_cast<std::size_t>(impl_->fft.complex_stride()) *
         sizeof(C);
}

}  // namespace eddy::spectral
