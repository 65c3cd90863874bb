// FFT plans on the CUDA backend: cuFFT, 64-bit plan interface, work memory owned by the caller
// (set_work_area) or, if none was given, by the plan itself. Transforms run on the default stream,
// where every parallel_for runs too, so no synchronisation is needed between them.
#include "backend/fft.hpp"

#if defined(EDDY_FFT_CUFFT)
#include <cufft.h>

#include <string>
#include <type_traits>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::backend {
namespace {

const char* cufft_message(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN:
      return "invalid plan";
    case CUFFT_ALLOC_FAILED:
      return "allocation failed";
    case CUFFT_INVALID_VALUE:
      return "invalid value";
    case CUFFT_INTERNAL_ERROR:
      return "internal error";
    case CUFFT_EXEC_FAILED:
      return "execution failed";
    case CUFFT_SETUP_FAILED:
      return "setup failed";
    case CUFFT_INVALID_SIZE:
      return "invalid size";
    default:
      return "error";
  }
}

void check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string("cuFFT ") + what + ": " + cufft_message(r) + " (code " + std::to_string(int(r)) + ")");
}

template <class T>
struct Types;
template <>
struct Types<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
};
template <>
struct Types<float> {
  using complex = cufftComplex;
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
};

}  // namespace

bool fft_available() { return true; }

template <class T>
struct FftPlan<T>::Impl {
  cufftHandle handle = 0;
  bool created = false;
  std::size_t work = 0;
  bool has_area = false;
  DeviceArray<char> own_area;  // used when the caller gave none
  ~Impl() {
    if (created) (void)cufftDestroy(handle);
  }
  void ensure_area() {
    if (has_area || work == 0) return;
    own_area.resize(work);
    check(cufftSetWorkArea(handle, own_area.data()), "set work area");
    has_area = true;
  }
};

template <class T>
FftPlan<T>::FftPlan(FftKind kind, const FftLayout& l) : kind_(kind), impl_(std::make_unique<Impl>()) {
  const detail::FftShape s = detail::resolve(kind, l);
  const int rank = static_cast<int>(l.n.size());
  long long n[3], in_n[3], out_n[3];
  for (int d = 0; d < rank; ++d) {
    n[d] = l.n[static_cast<std::size_t>(d)];
    in_n[d] = s.in_n[static_cast<std::size_t>(d)];
    out_n[d] = s.out_n[static_cast<std::size_t>(d)];
  }
  const cufftType type = kind == FftKind::r2c ? Types<T>::r2c : kind == FftKind::c2r ? Types<T>::c2r : Types<T>::c2c;
  check(cufftCreate(&impl_->handle), "create");
  impl_->created = true;
  check(cufftSetAutoAllocation(impl_->handle, 0), "set auto allocation");
  std::size_t work = 0;
  check(cufftMakePlanMany64(impl_->handle, rank, n, in_n, l.stride, s.in_dist, out_n, l.stride, s.out_dist, type,
                            l.batch, &work),
        "plan");
  impl_->work = work;
}

template <class T>
FftPlan<T>::~FftPlan() = default;
template <class T>
FftPlan<T>::FftPlan(FftPlan&&) noexcept = default;
template <class T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&&) noexcept = default;

template <class T>
void FftPlan<T>::execute(const T* in, Complex<T>* out) const {
  if (kind_ != FftKind::r2c) throw Error("FFT execute: real input given to a plan that is not r2c");
  impl_->ensure_area();
  auto* o = reinterpret_cast<typename Types<T>::complex*>(out);
  if constexpr (std::is_same_v<T, double>)
    check(cufftExecD2Z(impl_->handle, const_cast<double*>(in), o), "D2Z");
  else
    check(cufftExecR2C(impl_->handle, const_cast<float*>(in), o), "R2C");
}

template <class T>
void FftPlan<T>::execute(Complex<T>* in, T* out) const {
  if (kind_ != FftKind::c2r) throw Error("FFT execute: real output asked of a plan that is not c2r");
  impl_->ensure_area();
  auto* i = reinterpret_cast<typename Types<T>::complex*>(in);
  if constexpr (std::is_same_v<T, double>)
    check(cufftExecZ2D(impl_->handle, i, out), "Z2D");
  else
    check(cufftExecC2R(impl_->handle, i, out), "C2R");
}

template <class T>
void FftPlan<T>::execute(Complex<T>* data) const {
  if (kind_ == FftKind::r2c || kind_ == FftKind::c2r) throw Error("FFT execute: in-place call of an r2c/c2r plan");
  impl_->ensure_area();
  auto* d = reinterpret_cast<typename Types<T>::complex*>(data);
  const int dir = kind_ == FftKind::c2c_forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  if constexpr (std::is_same_v<T, double>)
    check(cufftExecZ2Z(impl_->handle, d, d, dir), "Z2Z");
  else
    check(cufftExecC2C(impl_->handle, d, d, dir), "C2C");
}

template <class T>
std::size_t FftPlan<T>::work_bytes() const {
  return impl_->work;
}

template <class T>
void FftPlan<T>::set_work_area(void* area) {
  if (impl_->work == 0) return;
  check(cufftSetWorkArea(impl_->handle, area), "set work area");
  impl_->has_area = true;
  impl_->own_area.resize(0);
}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace eddy::backend
#endif
