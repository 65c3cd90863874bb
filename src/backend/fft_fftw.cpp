// FFT plans on the CPU backend: FFTW3 (double and float libraries), threaded with OpenMP where the
// build found libfftw3_omp. Plans are made with FFTW_ESTIMATE: planning is instant and its choice of
// algorithm does not depend on timing, so a run is reproducible.
#include "backend/fft.hpp"

#if defined(EDDY_FFT_FFTW)
#include <fftw3.h>
#include <omp.h>

#include <mutex>
#include <string>

#include "core/error.hpp"

namespace eddy::backend {
namespace {

/// The FFTW API of one precision.
template <class T>
struct Fftw;

template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static void* malloc(std::size_t b) { return fftw_malloc(b); }
  static void free(void* p) { fftw_free(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment_of(const void* p) { return fftw_alignment_of(static_cast<double*>(const_cast<void*>(p))); }
  static void threads(int n) {
#if defined(EDDY_FFTW_THREADS)
    static std::once_flag once;
    std::call_once(once, [] { fftw_init_threads(); });
    fftw_plan_with_nthreads(n);
#else
    (void)n;
#endif
  }
  static plan r2c(int rank, const int* n, int howmany, double* in, const int* inembed, int stride, int idist,
                  complex* out, const int* onembed, int odist, unsigned flags) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, flags);
  }
  static plan c2r(int rank, const int* n, int howmany, complex* in, const int* inembed, int stride, int idist,
                  double* out, const int* onembed, int odist, unsigned flags) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, flags);
  }
  static plan c2c(int rank, const int* n, int howmany, complex* in, const int* inembed, int stride, int idist,
                  complex* out, const int* onembed, int odist, int sign, unsigned flags) {
    return fftw_plan_many_dft(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, sign, flags);
  }
  static void run_r2c(plan p, double* in, complex* out) { fftw_execute_dft_r2c(p, in, out); }
  static void run_c2r(plan p, complex* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void run_c2c(plan p, complex* in, complex* out) { fftw_execute_dft(p, in, out); }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static void* malloc(std::size_t b) { return fftwf_malloc(b); }
  static void free(void* p) { fftwf_free(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(const void* p) { return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p))); }
  static void threads(int n) {
#if defined(EDDY_FFTW_THREADS)
    static std::once_flag once;
    std::call_once(once, [] { fftwf_init_threads(); });
    fftwf_plan_with_nthreads(n);
#else
    (void)n;
#endif
  }
  static plan r2c(int rank, const int* n, int howmany, float* in, const int* inembed, int stride, int idist,
                  complex* out, const int* onembed, int odist, unsigned flags) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, flags);
  }
  static plan c2r(int rank, const int* n, int howmany, complex* in, const int* inembed, int stride, int idist,
                  float* out, const int* onembed, int odist, unsigned flags) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, flags);
  }
  static plan c2c(int rank, const int* n, int howmany, complex* in, const int* inembed, int stride, int idist,
                  complex* out, const int* onembed, int odist, int sign, unsigned flags) {
    return fftwf_plan_many_dft(rank, n, howmany, in, inembed, stride, idist, out, onembed, stride, odist, sign,
                               flags);
  }
  static void run_r2c(plan p, float* in, complex* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void run_c2r(plan p, complex* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void run_c2c(plan p, complex* in, complex* out) { fftwf_execute_dft(p, in, out); }
};

int to_int(index_t v) {
  if (v > 2147483647) throw Error("FFT plan: size " + std::to_string(v) + " exceeds FFTW's int interface");
  return static_cast<int>(v);
}

void check_aligned(int alignment, const char* what) {
  if (alignment != 0)
    throw Error(std::string("FFT execute: the ") + what +
                " array is not 16-byte aligned (allocate with DeviceArray; offsets must be multiples of 16 elements)");
}

}  // namespace

bool fft_available() { return true; }

template <class T>
struct FftPlan<T>::Impl {
  typename Fftw<T>::plan plan = nullptr;
  ~Impl() {
    if (plan) Fftw<T>::destroy(plan);
  }
};

template <class T>
FftPlan<T>::FftPlan(FftKind kind, const FftLayout& l) : kind_(kind), impl_(std::make_unique<Impl>()) {
  using F = Fftw<T>;
  using C = typename F::complex;
  const detail::FftShape s = detail::resolve(kind, l);
  const int rank = static_cast<int>(l.n.size());
  int n[3], in_n[3], out_n[3];
  for (int d = 0; d < rank; ++d) {
    n[d] = to_int(l.n[static_cast<std::size_t>(d)]);
    in_n[d] = to_int(s.in_n[static_cast<std::size_t>(d)]);
    out_n[d] = to_int(s.out_n[static_cast<std::size_t>(d)]);
  }
  const int howmany = to_int(l.batch), stride = to_int(l.stride);
  const int idist = to_int(s.in_dist), odist = to_int(s.out_dist);
  const bool real_in = kind == FftKind::r2c, real_out = kind == FftKind::c2r;
  // Planning buffers (FFTW_ESTIMATE does not touch them, but records their alignment and whether the
  // transform is in place); c2c plans are in place.
  const std::size_t in_bytes = static_cast<std::size_t>(s.in_points) * (real_in ? sizeof(T) : sizeof(C));
  const std::size_t out_bytes = static_cast<std::size_t>(s.out_points) * (real_out ? sizeof(T) : sizeof(C));
  const bool in_place = kind == FftKind::c2c_forward || kind == FftKind::c2c_backward;
  void* in = F::malloc(in_bytes);
  void* out = in_place ? in : F::malloc(out_bytes);
  F::threads(omp_get_max_threads());
  const unsigned flags = FFTW_ESTIMATE;
  switch (kind) {
    case FftKind::r2c:
      impl_->plan = F::r2c(rank, n, howmany, static_cast<T*>(in), in_n, stride, idist, static_cast<C*>(out), out_n,
                           odist, flags);
      break;
    case FftKind::c2r:
      impl_->plan = F::c2r(rank, n, howmany, static_cast<C*>(in), in_n, stride, idist, static_cast<T*>(out), out_n,
                           odist, flags);
      break;
    default:
      impl_->plan = F::c2c(rank, n, howmany, static_cast<C*>(in), in_n, stride, idist, static_cast<C*>(out), out_n,
                           odist, kind == FftKind::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  }
  if (out != in) F::free(out);
  F::free(in);
  if (!impl_->plan) throw Error("FFT plan: FFTW could not plan this transform");
}

template <class T>
FftPlan<T>::~FftPlan() = default;
template <class T>
FftPlan<T>::FftPlan(FftPlan&&) noexcept = default;
template <class T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&&) noexcept = default;

template <class T>
void FftPlan<T>::execute(const T* in, Complex<T>* out) const {
  using F = Fftw<T>;
  if (kind_ != FftKind::r2c) throw Error("FFT execute: real input given to a plan that is not r2c");
  check_aligned(F::alignment_of(in), "input");
  check_aligned(F::alignment_of(out), "output");
  F::run_r2c(impl_->plan, const_cast<T*>(in), reinterpret_cast<typename F::complex*>(out));
}

template <class T>
void FftPlan<T>::execute(Complex<T>* in, T* out) const {
  using F = Fftw<T>;
  if (kind_ != FftKind::c2r) throw Error("FFT execute: real output asked of a plan that is not c2r");
  check_aligned(F::alignment_of(in), "input");
  check_aligned(F::alignment_of(out), "output");
  F::run_c2r(impl_->plan, reinterpret_cast<typename F::complex*>(in), out);
}

template <class T>
void FftPlan<T>::execute(Complex<T>* data) const {
  using F = Fftw<T>;
  if (kind_ == FftKind::r2c || kind_ == FftKind::c2r) throw Error("FFT execute: in-place call of an r2c/c2r plan");
  check_aligned(F::alignment_of(data), "data");
  auto* c = reinterpret_cast<typename F::complex*>(data);
  F::run_c2c(impl_->plan, c, c);
}

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
