// validation.reference: kolmogorov — the laminar Kolmogorov flow from rest (spectral, 2D or 3D):
// u = U(t) sin(k_f y) x with U(t) = F / lambda (1 - exp(-lambda t)), lambda = nu k_f^2 + mu (+
// hyperviscosity); the advection term of a parallel shear flow vanishes identically, so this is exact.
#include "app/validation.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/config/config.hpp"

namespace eddy::cases {
namespace {

class KolmogorovError : public app::Validation {
 public:
  void check(const config::RunSpec& spec) const override {
    if (spec.solver != "spectral" || spec.physics.forcing.type != "kolmogorov")
      config::fail(spec.origins, "validation.reference",
                   "kolmogorov compares against the laminar Kolmogorov flow: it needs solver spectral and "
                   "physics.forcing.type kolmogorov");
  }

  /// Each rank sums the squared error and norm over its own points; the sums over ranks differ from one
  /// rank's by round-off only.
  std::vector<app::ValidationResult> finish(const app::FinalState& st, double tolerance) const override {
    const config::RunSpec& spec = st.spec;
    // The forcing's whole wave number along y, as the solver takes it (app/spectral_run.cpp).
    const double ly = spec.domain.length[1];
    const double mode = std::round(spec.physics.forcing.wavenumber * ly / (2 * M_PI));
    const double kf = 2 * M_PI / ly * mode, k2 = kf * kf;
    const double lambda =
        st.nu * k2 + spec.numerics.hyperviscosity * std::pow(k2, double(spec.numerics.hyperviscosity_order)) +
        spec.physics.drag;
    const double amp = spec.physics.forcing.amplitude / lambda * (1.0 - std::exp(-lambda * st.time));
    const io::Block& b = st.block;
    const auto dims = static_cast<std::size_t>(b.dims);
    double e2 = 0, n2 = 0;
    std::size_t at = 0;
    for (index_t k = 0; k < b.extent[2]; ++k)
      for (index_t j = 0; j < b.extent[1]; ++j) {
        const double exact = amp * std::sin(kf * (double(b.offset[1] + j) + 0.5) * st.spacing[1]);
        for (index_t i = 0; i < b.extent[0]; ++i, at += dims)
          for (std::size_t d = 0; d < dims; ++d) {
            const double ref = d == 0 ? exact : 0.0, v = st.velocity[at + d];
            e2 += (v - ref) * (v - ref), n2 += ref * ref;
          }
      }
    const double error = std::sqrt(st.comm.sum(e2) / st.comm.sum(n2));
    return {app::figure("kolmogorov", "velocity_l2_error", error,
                        log::cat("relative L2 error of the velocity against the laminar profile ", amp,
                                 " sin(", kf, " y) m/s at t = ", st.time, " s"),
                        tolerance > 0 ? tolerance : std::numeric_limits<double>::infinity())};
  }
};

}  // namespace

void register_kolmogorov_2d(app::ValidationRegistry& registry) {
  registry.add("kolmogorov", "laminar Kolmogorov flow from rest against the exact solution",
               std::make_unique<KolmogorovError>());
}

}  // namespace eddy::cases
