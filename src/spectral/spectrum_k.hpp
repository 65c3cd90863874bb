#pragma once
/// The shell sums of an energy spectrum on the device (spectrum.hpp), for any energy of a local mode.
#include <algorithm>
#include <cmath>

#include "backend/backend.hpp"
#include "backend/parallel.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"
#include "spectral/spectrum.hpp"

namespace eddy::spectral {

/// Lanes of the spectrum's shell sums: enough to fill a GPU (16384), and no more than keep the lanes'
/// partial sums (lanes x shells doubles) within the size of one field of this rank's modes.
inline index_t spectrum_lanes(index_t modes, index_t shells) {
  return std::max<index_t>(1, std::min<index_t>(16384, modes / std::max<index_t>(shells, 1)));
}

/// Groups of the lanes' second pass: enough threads (shells x groups) to keep a GPU's loads in flight.
inline constexpr index_t spectrum_groups = 128;

/// Shell sums of the energy without atomics, reproducibly (the same order on every run and backend):
/// lane l sums the modes l, l + lanes, .. into its own column of part[shell][lane] (coalesced on GPUs);
/// then group g of each shell adds the lanes g, g + groups, .. in order into mid[shell][group] (shells x
/// groups threads: one thread per shell adding every lane took 3.8 ms at 256^3 on an H200, 16384
/// dependent loads on one multiprocessor), and each shell adds its groups in order.
/// `energy(md, m)` is the energy of local mode m (EDDY_HD, with its Hermitian weight), Mode<T> md.
template <class T, class Energy>
void launch_spectrum(const Grid& g, const Energy& energy, double dk, index_t lanes, index_t shells,
                     double* part, double* mid, double* out) {
  const index_t modes = g.modes();
  backend::parallel_for("spectral::spectrum_lanes", lanes, [=] EDDY_DEVICE(index_t l) {
    for (index_t j = 0; j < shells; ++j) part[j * lanes + l] = 0.0;
    for (index_t m = l; m < modes; m += lanes) {
      const Mode<T> md = Mode<T>::at(g, m);
      const double kx = g.kf[0] * double(md.ix), ky = g.kf[1] * double(md.iy), kz = g.kf[2] * double(md.iz);
      const auto j = static_cast<index_t>(std::sqrt(kx * kx + ky * ky + kz * kz) / dk + 0.5);
      if (j < shells) part[j * lanes + l] += energy(md, m);
    }
  });
  const index_t groups = spectrum_groups;
  backend::parallel_for("spectral::spectrum_groups", shells * groups, [=] EDDY_DEVICE(index_t i) {
    const index_t j = i / groups, k = i - j * groups;
    double e = 0.0;
    for (index_t l = k; l < lanes; l += groups) e += part[j * lanes + l];
    mid[i] = e;
  });
  backend::parallel_for("spectral::spectrum_shells", shells, [=] EDDY_DEVICE(index_t j) {
    double e = 0.0;
    for (index_t k = 0; k < groups; ++k) e += mid[j * groups + k];
    out[j] = e / dk;
  });
}

/// The spectrum of `g` with the mode energies `energy`, summed over the ranks of `exchange`. Collective.
template <class T, class Energy>
Spectrum shell_spectrum(const Grid& g, const Energy& energy, field::TransposeExchange& exchange) {
  Spectrum sp = spectrum_shells(g);
  const auto shells = static_cast<index_t>(sp.k.size());
  const index_t lanes = spectrum_lanes(g.modes(), shells);
  backend::DeviceArray<double> part(static_cast<std::size_t>(lanes * shells)),
      mid(static_cast<std::size_t>(shells * spectrum_groups)), out(static_cast<std::size_t>(shells));
  launch_spectrum<T>(g, energy, sp.dk, lanes, shells, part.data(), mid.data(), out.data());
  sp.energy = out.to_host();
  exchange.sum(sp.energy.data(), static_cast<int>(shells));
  return sp;
}

}  // namespace eddy::spectral
