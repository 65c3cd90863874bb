// FFT plans where the build has no FFT library: HIP where CMake found no hipFFT (Debian 12 packages
// neither hipFFT nor rocFFT), or a CPU build that did not find FFTW3. Everything compiles; creating a
// plan says what is missing.
#include "backend/fft.hpp"

#if !defined(EDDY_FFT_FFTW) && !defined(EDDY_FFT_CUFFT) && !defined(EDDY_FFT_HIPFFT)
#include "core/error.hpp"

namespace eddy::backend {

bool fft_available() { return false; }

namespace detail {
namespace {

/// A plan that cannot be made: its constructor says what the build lacks.
template <class T>
struct MissingPlan final : LibraryPlan<T> {
  MissingPlan(FftKind, const FftLayout&, const FftShape&) {
#if defined(EDDY_BACKEND_HIP)
    throw Error(
        "spectral solver needs hipFFT, not available in this build (install ROCm's hipfft, or on NVIDIA's "
        "platform hipFFT built for CUDA, and configure again)");
#else
    throw Error(
        "spectral solver needs FFTW3 (libfftw3-dev: scripts/install-deps.sh), not available in this build");
#endif
  }
  void r2c(const T*, Complex<T>*) override {}
  void c2r(Complex<T>*, T*) override {}
  void c2c(Complex<T>*, Complex<T>*, bool) override {}
};

}  // namespace

EDDY_FFT_LIBRARY_PLANS(MissingPlan)
}  // namespace detail
}  // namespace eddy::backend
#endif
