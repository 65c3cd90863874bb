// FFT plans where the build has no FFT library: HIP on Debian 12 (no hipFFT/rocFFT packages), or a CPU
// build that did not find FFTW3. Everything compiles; creating a plan says what is missing.
#include "backend/fft.hpp"

#if !defined(EDDY_FFT_FFTW) && !defined(EDDY_FFT_CUFFT)
#include "core/error.hpp"

namespace eddy::backend {

bool fft_available() { return false; }

template <class T>
struct FftPlan<T>::Impl {};

template <class T>
FftPlan<T>::FftPlan(FftKind kind, const FftLayout& l) : kind_(kind) {
  (void)detail::resolve(kind, l);
#if defined(EDDY_BACKEND_HIP)
  throw Error("spectral solver needs hipFFT, not available in this build");
#else
  throw Error("spectral solver needs FFTW3 (libfftw3-dev: scripts/install-deps.sh), not available in this build");
#endif
}

template <class T>
FftPlan<T>::~FftPlan() = default;
template <class T>
FftPlan<T>::FftPlan(FftPlan&&) noexcept = default;
template <class T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&&) noexcept = default;
template <class T>
void FftPlan<T>::execute(const T*, Complex<T>*) const {}
template <class T>
void FftPlan<T>::execute(Complex<T>*, T*) const {}
template <class T>
void FftPlan<T>::execute(Complex<T>*) const {}
template <class T>
std::size_t FftPlan<T>::work_bytes() const {
  return 0;
}
template <class T>
void FftPlan<T>::set_work_area(void*) {}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace eddy::backend
#endif
