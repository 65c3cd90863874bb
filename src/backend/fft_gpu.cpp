// FFT plans on the GPU backends: cuFFT (CUDA) or hipFFT (HIP: rocFFT underneath on AMD, cuFFT on
// NVIDIA's platform), one class over both, whose APIs match call for call (the names differ in their
// prefix: FFT_API). 64-bit plan interface, work memory owned by the caller (set_work_area) or, if none
// was given, by the plan itself. Transforms run on the compute stream (backend.hpp), where every
// parallel_for runs too, so no synchronisation is needed between them and a step's transforms can be
// recorded in its graph (graph.hpp).
#include "backend/fft.hpp"

#if defined(EDDY_FFT_CUFFT) || defined(EDDY_FFT_HIPFFT)
#if defined(EDDY_FFT_CUFFT)
#include <cufft.h>
#define FFT_API(name) cufft##name
#define FFT_CONST(name) CUFFT_##name
#define FFT_INVERSE CUFFT_INVERSE
#define FFT_STREAM cudaStream_t
#define FFT_LIBRARY "cuFFT"
#else
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>
#define FFT_API(name) hipfft##name
#define FFT_CONST(name) HIPFFT_##name
#define FFT_INVERSE HIPFFT_BACKWARD
#define FFT_STREAM hipStream_t
#define FFT_LIBRARY "hipFFT"
#endif

#include <string>
#include <type_traits>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::backend {
namespace {

using Result = FFT_API(Result);
using Handle = FFT_API(Handle);
using Type = FFT_API(Type);

const char* fft_message(Result r) {
  switch (r) {
    case FFT_CONST(INVALID_PLAN):
      return "invalid plan";
    case FFT_CONST(ALLOC_FAILED):
      return "allocation failed";
    case FFT_CONST(INVALID_VALUE):
      return "invalid value";
    case FFT_CONST(INTERNAL_ERROR):
      return "internal error";
    case FFT_CONST(EXEC_FAILED):
      return "execution failed";
    case FFT_CONST(SETUP_FAILED):
      return "setup failed";
    case FFT_CONST(INVALID_SIZE):
      return "invalid size";
    default:
      return "error";
  }
}

void check(Result r, const char* what) {
  if (r != FFT_CONST(SUCCESS))
    throw Error(std::string(FFT_LIBRARY " ") + what + ": " + fft_message(r) + " (code " +
                std::to_string(int(r)) + ")");
}

template <class T>
struct Types;
template <>
struct Types<double> {
  using complex = FFT_API(DoubleComplex);
  static constexpr Type r2c = FFT_CONST(D2Z), c2r = FFT_CONST(Z2D), c2c = FFT_CONST(Z2Z);
};
template <>
struct Types<float> {
  using complex = FFT_API(Complex);
  static constexpr Type r2c = FFT_CONST(R2C), c2r = FFT_CONST(C2R), c2c = FFT_CONST(C2C);
};
static_assert(sizeof(Types<double>::complex) == sizeof(Complex<double>) &&
                  sizeof(Types<float>::complex) == sizeof(Complex<float>),
              "the library's complex types must have backend::Complex's layout (real, imaginary)");

template <class T>
class GpuFftPlan final : public detail::LibraryPlan<T> {
  using C = typename Types<T>::complex;

 public:
  GpuFftPlan(FftKind kind, const FftLayout& l, const detail::FftShape& s) {
    long long n[3], in_n[3], out_n[3];
    for (std::size_t d = 0; d < l.n.size(); ++d) n[d] = l.n[d], in_n[d] = s.in_n[d], out_n[d] = s.out_n[d];
    const Type type = kind == FftKind::r2c   ? Types<T>::r2c
                      : kind == FftKind::c2r ? Types<T>::c2r
                                             : Types<T>::c2c;
    check(FFT_API(Create)(&handle_), "create");
    Result r = FFT_API(SetAutoAllocation)(handle_, 0);
    if (r == FFT_CONST(SUCCESS))
      r = FFT_API(SetStream)(handle_, static_cast<FFT_STREAM>(detail::compute_stream()));
    if (r == FFT_CONST(SUCCESS))
      r = FFT_API(MakePlanMany64)(handle_, static_cast<int>(l.n.size()), n, in_n, s.in_stride, s.in_dist,
                                  out_n, s.out_stride, s.out_dist, type, l.batch, &work_);
    if (r != FFT_CONST(SUCCESS)) {
      (void)FFT_API(Destroy)(handle_);  // the destructor of a throwing constructor does not run
      check(r, "plan");
    }
  }
  ~GpuFftPlan() override { (void)FFT_API(Destroy)(handle_); }
  GpuFftPlan(const GpuFftPlan&) = delete;
  GpuFftPlan& operator=(const GpuFftPlan&) = delete;

  void r2c(const T* in, Complex<T>* out) override {
    ensure_area();
    auto* o = reinterpret_cast<C*>(out);
    if constexpr (std::is_same_v<T, double>)
      check(FFT_API(ExecD2Z)(handle_, const_cast<double*>(in), o), "D2Z");
    else
      check(FFT_API(ExecR2C)(handle_, const_cast<float*>(in), o), "R2C");
  }
  void c2r(Complex<T>* in, T* out) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    if constexpr (std::is_same_v<T, double>)
      check(FFT_API(ExecZ2D)(handle_, i, out), "Z2D");
    else
      check(FFT_API(ExecC2R)(handle_, i, out), "C2R");
  }
  void c2c(Complex<T>* in, Complex<T>* out, bool forward) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    auto* o = reinterpret_cast<C*>(out);
    const int dir = forward ? FFT_CONST(FORWARD) : FFT_INVERSE;
    if constexpr (std::is_same_v<T, double>)
      check(FFT_API(ExecZ2Z)(handle_, i, o, dir), "Z2Z");
    else
      check(FFT_API(ExecC2C)(handle_, i, o, dir), "C2C");
  }
  std::size_t work_bytes() const override { return work_; }
  void set_work_area(void* area) override {
    if (work_ == 0) return;
    check(FFT_API(SetWorkArea)(handle_, area), "set work area");
    has_area_ = true;
    own_area_.resize(0);
  }

 private:
  /// Without a caller's area, the plan allocates its own at the first execution.
  void ensure_area() {
    if (has_area_ || work_ == 0) return;
    own_area_.resize(work_);
    check(FFT_API(SetWorkArea)(handle_, own_area_.data()), "set work area");
    has_area_ = true;
  }
  Handle handle_{};  // an int for cuFFT (and hipFFT on NVIDIA's platform), a pointer for hipFFT on AMD's
  std::size_t work_ = 0;
  bool has_area_ = false;
  DeviceArray<char> own_area_;
};

}  // namespace

bool fft_available() { return true; }

namespace detail {
EDDY_FFT_LIBRARY_PLANS(GpuFftPlan)
}  // namespace detail
}  // namespace eddy::backend
#endif
