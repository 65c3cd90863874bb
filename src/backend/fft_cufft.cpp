// FFT plans on the CUDA backend: cuFFT, 64-bit plan interface, work memory owned by the caller
// (set_work_area) or, if none was given, by the plan itself. Transforms run on the compute stream
// (backend.hpp), where every parallel_for runs too, so no synchronisation is needed between them and a
// step's transforms can be recorded in its graph (graph.hpp).
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
    throw Error(std::string("cuFFT ") + what + ": " + cufft_message(r) + " (code " + std::to_string(int(r)) +
                ")");
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

template <class T>
class CufftPlan final : public detail::LibraryPlan<T> {
  using C = typename Types<T>::complex;

 public:
  CufftPlan(FftKind kind, const FftLayout& l, const detail::FftShape& s) {
    long long n[3], in_n[3], out_n[3];
    for (std::size_t d = 0; d < l.n.size(); ++d) n[d] = l.n[d], in_n[d] = s.in_n[d], out_n[d] = s.out_n[d];
    const cufftType type = kind == FftKind::r2c   ? Types<T>::r2c
                           : kind == FftKind::c2r ? Types<T>::c2r
                                                  : Types<T>::c2c;
    check(cufftCreate(&handle_), "create");
    cufftResult r = cufftSetAutoAllocation(handle_, 0);
    if (r == CUFFT_SUCCESS) r = cufftSetStream(handle_, static_cast<cudaStream_t>(detail::compute_stream()));
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany64(handle_, static_cast<int>(l.n.size()), n, in_n, s.in_stride, s.in_dist, out_n,
                              s.out_stride, s.out_dist, type, l.batch, &work_);
    if (r != CUFFT_SUCCESS) {
      (void)cufftDestroy(handle_);  // the destructor of a throwing constructor does not run
      check(r, "plan");
    }
  }
  ~CufftPlan() override { (void)cufftDestroy(handle_); }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  void r2c(const T* in, Complex<T>* out) override {
    ensure_area();
    auto* o = reinterpret_cast<C*>(out);
    if constexpr (std::is_same_v<T, double>)
      check(cufftExecD2Z(handle_, const_cast<double*>(in), o), "D2Z");
    else
      check(cufftExecR2C(handle_, const_cast<float*>(in), o), "R2C");
  }
  void c2r(Complex<T>* in, T* out) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    if constexpr (std::is_same_v<T, double>)
      check(cufftExecZ2D(handle_, i, out), "Z2D");
    else
      check(cufftExecC2R(handle_, i, out), "C2R");
  }
  void c2c(Complex<T>* in, Complex<T>* out, bool forward) override {
    ensure_area();
    auto* i = reinterpret_cast<C*>(in);
    auto* o = reinterpret_cast<C*>(out);
    const int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    if constexpr (std::is_same_v<T, double>)
      check(cufftExecZ2Z(handle_, i, o, dir), "Z2Z");
    else
      check(cufftExecC2C(handle_, i, o, dir), "C2C");
  }
  std::size_t work_bytes() const override { return work_; }
  void set_work_area(void* area) override {
    if (work_ == 0) return;
    check(cufftSetWorkArea(handle_, area), "set work area");
    has_area_ = true;
    own_area_.resize(0);
  }

 private:
  /// Without a caller's area, the plan allocates its own at the first execution.
  void ensure_area() {
    if (has_area_ || work_ == 0) return;
    own_area_.resize(work_);
    check(cufftSetWorkArea(handle_, own_area_.data()), "set work area");
    has_area_ = true;
  }
  cufftHandle handle_ = 0;
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
  return std::make_unique<CufftPlan<T>>(kind, layout, shape);
}

template std::unique_ptr<LibraryPlan<float>> make_library_plan<float>(FftKind, const FftLayout&,
                                                                      const FftShape&);
template std::unique_ptr<LibraryPlan<double>> make_library_plan<double>(FftKind, const FftLayout&,
                                                                        const FftShape&);

}  // namespace detail
}  // namespace eddy::backend
#endif
