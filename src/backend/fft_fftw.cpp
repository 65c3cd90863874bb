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

/// The FFTW API of one precision: FFTW names it by prefix (fftw_, fftwf_), hence the macro.
template <class T>
struct Fftw;

#if defined(EDDY_FFTW_THREADS)
#define EDDY_FFTW_THREADS_INIT(P)                  \
  static std::once_flag once;                      \
  std::call_once(once, [] { P##init_threads(); }); \
  P##plan_with_nthreads(n);
#else
#define EDDY_FFTW_THREADS_INIT(P) (void)n;
#endif

#define EDDY_FFTW_API(T, P)                                          \
  template <>                                                        \
  struct Fftw<T> {                                                   \
    using plan = P##plan;                                            \
    using complex = P##complex;                                      \
    static void* malloc(std::size_t b) { return P##malloc(b); }      \
    static void free(void* p) { P##free(p); }                        \
    static void destroy(plan p) { P##destroy_plan(p); }              \
    static int alignment_of(const void* p) {                         \
      return P##alignment_of(static_cast<T*>(const_cast<void*>(p))); \
    }                                                                \
    static void threads(int n) { EDDY_FFTW_THREADS_INIT(P) }         \
    static constexpr auto plan_r2c = &P##plan_many_dft_r2c;          \
    static constexpr auto plan_c2r = &P##plan_many_dft_c2r;          \
    static constexpr auto plan_c2c = &P##plan_many_dft;              \
    static constexpr auto run_r2c = &P##execute_dft_r2c;             \
    static constexpr auto run_c2r = &P##execute_dft_c2r;             \
    static constexpr auto run_c2c = &P##execute_dft;                 \
  };
EDDY_FFTW_API(double, fftw_)
EDDY_FFTW_API(float, fftwf_)
#undef EDDY_FFTW_API
#undef EDDY_FFTW_THREADS_INIT

int to_int(index_t v) {
  if (v > 2147483647) throw Error("FFT plan: size " + std::to_string(v) + " exceeds FFTW's int interface");
  return static_cast<int>(v);
}

void check_aligned(int alignment, const char* what) {
  if (alignment != 0)
    throw Error(std::string("FFT execute: the ") + what +
                " array is not 16-byte aligned (allocate with DeviceArray; offsets must be multiples of 16 "
                "elements)");
}

template <class T>
class FftwPlan final : public detail::LibraryPlan<T> {
  using F = Fftw<T>;
  using C = typename F::complex;

 public:
  FftwPlan(FftKind kind, const FftLayout& l, const detail::FftShape& s) {
    const int rank = static_cast<int>(l.n.size());
    int n[3], in_n[3], out_n[3];
    for (std::size_t d = 0; d < l.n.size(); ++d)
      n[d] = to_int(l.n[d]), in_n[d] = to_int(s.in_n[d]), out_n[d] = to_int(s.out_n[d]);
    const int howmany = to_int(l.batch), stride = to_int(s.in_stride), ostride = to_int(s.out_stride);
    const int idist = to_int(s.in_dist), odist = to_int(s.out_dist);
    // Planning buffers: FFTW_ESTIMATE does not touch them, but records their alignment and whether the
    // transform is in place (c2c plans are unless made out of place, r2c and c2r are not).
    const bool in_place = (kind == FftKind::c2c_forward || kind == FftKind::c2c_backward) && !l.out_of_place;
    void* in =
        F::malloc(static_cast<std::size_t>(s.in_points) * (kind == FftKind::r2c ? sizeof(T) : sizeof(C)));
    void* out = in_place ? in
                         : F::malloc(static_cast<std::size_t>(s.out_points) *
                                     (kind == FftKind::c2r ? sizeof(T) : sizeof(C)));
    F::threads(omp_get_max_threads());
    const unsigned flags = FFTW_ESTIMATE;
    if (kind == FftKind::r2c)
      plan_ = F::plan_r2c(rank, n, howmany, static_cast<T*>(in), in_n, stride, idist, static_cast<C*>(out),
                          out_n, ostride, odist, flags);
    else if (kind == FftKind::c2r)
      plan_ = F::plan_c2r(rank, n, howmany, static_cast<C*>(in), in_n, stride, idist, static_cast<T*>(out),
                          out_n, ostride, odist, flags);
    else
      plan_ =
          F::plan_c2c(rank, n, howmany, static_cast<C*>(in), in_n, stride, idist, static_cast<C*>(out), out_n,
                      ostride, odist, kind == FftKind::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
    if (out != in) F::free(out);
    F::free(in);
    if (!plan_) throw Error("FFT plan: FFTW could not plan this transform");
  }
  ~FftwPlan() override { F::destroy(plan_); }
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;

  void r2c(const T* in, Complex<T>* out) override {
    aligned(in, out);
    F::run_r2c(plan_, const_cast<T*>(in), reinterpret_cast<C*>(out));
  }
  void c2r(Complex<T>* in, T* out) override {
    aligned(in, out);
    F::run_c2r(plan_, reinterpret_cast<C*>(in), out);
  }
  void c2c(Complex<T>* in, Complex<T>* out, bool) override {
    aligned(in, out);
    F::run_c2c(plan_, reinterpret_cast<C*>(in), reinterpret_cast<C*>(out));
  }

 private:
  static void aligned(const void* in, const void* out) {
    check_aligned(F::alignment_of(in), "input");
    check_aligned(F::alignment_of(out), "output");
  }
  typename F::plan plan_ = nullptr;
};

}  // namespace

bool fft_available() { return true; }

namespace detail {
EDDY_FFT_LIBRARY_PLANS(FftwPlan)
}  // namespace detail
}  // namespace eddy::backend
#endif
