// FFT plans on the HIP backend: hipFFT (rocFFT underneath on AMD, cuFFT on NVIDIA's platform), the same
// calls as fft_cufft.cpp: 64-bit plan interface, work memory owned by the caller (set_work_area) or, if
// none was given, by the plan itself. Transforms run on the compute stream (backend.hpp), where every
// parallel_for runs too, so no synchronisation is needed between them and a step's transforms can be
// recorded in its graph (graph.hpp).
#include "backend/fft.hpp"

#if defined(EDDY_FFT_HIPFFT)
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>

#include <string>
#include <type_traits>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::backend {
namespace {

const char* hipfft_message(hipfftResult r) {
  switch (r) {
    case HIPFFT_INVALID_PLAN:
      return "invalid plan";
    case HIPFFT_ALLOC_FAILED:
      return "allocation failed";
    case HIPFFT_INVALID_TYPE:
      return "invalid type";
    case HIPFFT_INVALID_VALUE:
      return "invalid value";
    case HIPFFT_INTERNAL_ERROR:
      return "internal error";
    case HIPFFT_EXEC_FAILED:
      return "execution failed";
    case HIPFFT_SETUP_FAILED:
      return "setup failed";
    case HIPFFT_INVALID_SIZE:
      return "invalid size";
    case HIPFFT_NOT_IMPLEMENTED:
      return "not implemented";
    case HIPFFT_NOT_SUPPORTED:
      return "not supported";
    default:
      return "error";
  }
}

void check(hipfftResult r, const char* what) {
  if (r != HIPFFT_SUCCESS)
    throw Error(std::string("hipFFT ") + what + ": " + hipfft_message(r) + " (code " +
                std::to_string(int(r)) + ")");
}

template <class T>
struct Types;
template <>
struct Types<double> {
  using complex = hipfftDoubleComplex;
  static constexpr hipfftType r2c = HIPFFT_D2Z, c2r = HIPFFT_Z2D, c2c = HIPFFT_Z2Z;
};
template <>
struct Types<float> {
  using complex = hipfftComplex;
  static constexpr hipfftType r2c = HIPFFT_R2C, c2r = HIPFFT_C2R, c2c = HIPFFT_C2C;
};
static_assert(sizeof(hipfftDoubleComplex) == sizeof(Complex<double>) &&
                  sizeof(hipfftComplex) == sizeof(Complex<float>),
              "hipFFT's complex types must have backend::Complex's layout (real, imaginary)");

template <class T>
class HipfftPlan final : public detail::LibraryPlan<T> {
  using C = typename Types<T>::complex;

 public:
  HipfftPlan(FftKind kind, const FftLayout& l, const detail::FftShape& s) {
    long long n[3], in_n[3], out_n[3];
    for (std::size_t d = 0; d < l.n.size(); ++d) n[d] = l.n[d], in_n[d] = s.in_n[d], out_n[d] = s.out_n[d];
    const hipfftType type = kind == FftKind::r2c   ? Types<T>::r2c
                            : kind == FftKind::c2r ? Types<T>::c2r
                                                   : Types<T>::c2c;
    check(hipfftCreate(&handle_), "create");
    hipfftResult r = hipfftSetAutoAllocation(handle_, 0);
    if (r == HIPFFT_SUCCESS) r = hipfftSetStream(handle_, static_cast<hipStream_t>(detail::compute_stream()));
    if (r == HIPFFT_SUCCESS)
      r = hipfftMakePlanMany64(handle_, static_cast<int>(l.n.size()), n, in_n, s.in_stride, s.in_dist, out_n,
                               s.out_stride, s.out_dist, type, l.batch, &work_);
    if (r != HIPFFT_SUCCESS) {
      (void)hipfftDestroy(handle_);  // the destructor of a throwing constructor does not run
      check(r, "plan");
    }
  }
  ~HipfftPlan() override { (void)hipfftDestroy(handle_); }
  HipfftPlan(const HipfftPlan&) = delete;
  HipfftPlan& operator=(const HipfftPlan&) = delete;

  void r2c(const T* in, Complex<T>* out) override {
    ensure_area();
    auto* o = reinterpret_cast<C*>(out);
    if constexpr (std::is_same_v<T, double>)
      check(hipfftExecD2Z(handle_, const_cast<double*>(in), o), "D2Z");
    else
      check(hipfftExecR2C(handle_, const_cast<float*>(in), o), "R2C");
  }
  void c2r(Complex<T>* in, T* out) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    if constexpr (std::is_same_v<T, double>)
      check(hipfftExecZ2D(handle_, i, out), "Z2D");
    else
      check(hipfftExecC2R(handle_, i, out), "C2R");
  }
  void c2c(Complex<T>* in, Complex<T>* out, bool forward) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    auto* o = reinterpret_cast<C*>(out);
    const int dir = forward ? HIPFFT_FORWARD : HIPFFT_BACKWARD;
    if constexpr (std::is_same_v<T, double>)
      check(hipfftExecZ2Z(handle_, i, o, dir), "Z2Z");
    else
      check(hipfftExecC2C(handle_, i, o, dir), "C2C");
  }
  std::size_t work_bytes() const override { return work_; }
  void set_work_area(void* area) override {
    if (work_ == 0) return;
    check(hipfftSetWorkArea(handle_, area), "set work area");
    has_area_ = true;
    own_area_.resize(0);
  }

 private:
  /// Without a caller's area, the plan allocates its own at the first execution.
  void ensure_area() {
    if (has_area_ || work_ == 0) return;
    own_area_.resize(work_);
    check(hipfftSetWorkArea(handle_, own_area_.data()), "set work area");
    has_area_ = true;
  }
  hipfftHandle handle_{};  // an int on NVIDIA's platform (a cufftHandle), a pointer on AMD's
  std::size_t work_ = 0;
  bool has_area_ = false;
  DeviceArray<char> own_area_;
};

}  // namespace

bool fft_available() { return true; }

namespace detail {

template <class T>
std::unique_ptr<LibraryPlan<T>> make_library_plan(FftKind kind, const FftLayout& layout,
                                                  const FftShape& shape) {
  return std::make_unique<HipfftPlan<T>>(kind, layout, shape);
}

template std::unique_ptr<LibraryPlan<float>> make_library_plan<float>(FftKind, const FftLayout&,
                                                                      const FftShape&);
template std::unique_ptr<LibraryPlan<double>> make_library_plan<double>(FftKind, const FftLayout&,
                                                                        const FftShape&);

}  // namespace detail
}  // namespace eddy::backend
#endif
