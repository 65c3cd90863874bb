#pragma once
/// FFT plans: the one wrapper over FFTW3 (CPU), cuFFT (CUDA) and, where CMake found it, hipFFT (HIP).
///
/// A plan describes a batch of equal transforms over device arrays, in the layout both FFTW's
/// "advanced" interface and cuFFT's plan_many accept: `n` transform sizes (slowest first), element
/// `stride` between consecutive points of one transform (multi-dimensional transforms are laid out
/// contiguously in units of that stride), `dist` between transforms of a batch, for input and output.
/// Transforms are unnormalised: forward then backward multiplies by the product of `n`.
/// Sign convention: forward is exp(-i k x), backward exp(+i k x), as in FFTW and cuFFT.
///
/// Contracts: real-to-complex (r2c) and complex-to-real (c2r) plans are out of place; c2r overwrites
/// its input (FFTW and cuFFT both may); complex-to-complex (c2c) plans are in place unless the layout
/// asks for out of place (FftLayout::out_of_place: then input and output must not overlap, and the
/// input may be overwritten, as cuFFT allows itself). Arrays must be
/// 16-byte aligned (DeviceArray memory, offsets that are multiples of 16 elements); the CPU backend
/// checks this and throws. Plans are created once and reused; creating one may allocate, executing
/// one does not (cuFFT work memory is the caller's: see work_bytes / set_work_area).
/// This header is plain C++: any file may include it.
#include <cstddef>
#include <memory>
#include <vector>

#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::backend {

/// A complex number with the memory layout of fftw_complex / cufftComplex (real, imaginary).
template <class T>
struct Complex {
  T re, im;
};

template <class T>
EDDY_HD EDDY_INLINE Complex<T> operator+(Complex<T> a, Complex<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
EDDY_HD EDDY_INLINE Complex<T> operator-(Complex<T> a, Complex<T> b) {
  return {a.re - b.re, a.im - b.im};
}
/// a * b: four products, then their difference (real part) and sum (imaginary part), each rounded, never
/// fused. On the host the real part is written a.re b.re + (-a.im) b.im, bit for bit a.re b.re - a.im b.im
/// ((-x) y = -(x y) exactly, and x - y is x + (-y), signed zeros included): written with the minus, GCC
/// 12's SLP vectorizer on x86 with FMA (-march=native, x86-64-v3) matches the lanes {p - q, p' + q'} of
/// products as a VEC_FMADDSUB pattern and emits vfmaddsub, a fused multiply-add in spite of
/// -ffp-contract=off, in some kernels and not in others, so that one product had different bits in
/// different kernels (spectral_solver.cpp: the phase-shifted transform inputs a stage writes, and those
/// launch_inputs writes after stats() or load_state()). A sum in both lanes leaves no add/sub blend to
/// match. Device code keeps the plain form (device compilers contract by their own rules; CPU and GPU
/// results agree to round-off, not bitwise).
template <class T>
EDDY_HD EDDY_INLINE Complex<T> operator*(Complex<T> a, Complex<T> b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
#else
  return {a.re * b.re + (-a.im) * b.im, a.re * b.im + a.im * b.re};
#endif
}
template <class T>
EDDY_HD EDDY_INLINE Complex<T> operator*(T s, Complex<T> a) {
  return {s * a.re, s * a.im};
}
/// i * a.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> times_i(Complex<T> a) {
  return {-a.im, a.re};
}
/// c ? a : b, chosen part by part: in a loop over modes a select of each part vectorizes, where a choice
/// between two structs becomes copies in branches.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> select(bool c, Complex<T> a, Complex<T> b) {
  return {c ? a.re : b.re, c ? a.im : b.im};
}
/// |a|^2.
template <class T>
EDDY_HD EDDY_INLINE T norm2(Complex<T> a) {
  return a.re * a.re + a.im * a.im;
}

enum class FftKind { r2c, c2r, c2c_forward, c2c_backward };

/// Shape and memory layout of a batch of transforms (element units: reals for the real side of r2c/c2r,
/// complex numbers otherwise).
struct FftLayout {
  std::vector<index_t> n;     ///< transform sizes, slowest first (1 to 3 entries)
  index_t batch = 1;          ///< transforms in the batch
  index_t stride = 1;         ///< distance between consecutive points of one transform (input; output too
                              ///< unless out_stride is set)
  index_t in_dist = 0;        ///< distance between the inputs of consecutive transforms (0 = contiguous)
  index_t out_dist = 0;       ///< distance between the outputs (0 = contiguous)
  index_t out_stride = 0;     ///< the output's distance between consecutive points (0 = stride)
  bool out_of_place = false;  ///< c2c only: planned out of place, executed by execute(in, out)
};

/// True when this build has an FFT library (FFTW on the CPU, cuFFT on CUDA, hipFFT on HIP where CMake found
/// it: not on Debian 12, which packages none).
bool fft_available();

namespace detail {

/// A layout with everything the libraries need spelled out: per-side embedded sizes and distances.
struct FftShape {
  std::vector<index_t> in_n, out_n;  ///< sizes of the input and output arrays of one transform
  index_t in_dist = 0, out_dist = 0;
  index_t in_stride = 1, out_stride = 1;
  index_t in_points = 0, out_points = 0;  ///< elements one batch spans on each side (for planning buffers)
};

/// Check a layout (throws eddy::Error naming what is wrong) and spell it out for `kind`: the complex side
/// of r2c/c2r holds n_last/2 + 1 points along the fastest dimension.
FftShape resolve(FftKind kind, const FftLayout& layout);

/// One library's plan (backend/fft_fftw.cpp, fft_gpu.cpp); FftPlan checks the calls and owns it.
template <class T>
class LibraryPlan {
 public:
  virtual ~LibraryPlan() = default;
  virtual void r2c(const T* in, Complex<T>* out) = 0;
  virtual void c2r(Complex<T>* in, T* out) = 0;
  /// c2c, in place (in == out) or, for an out-of-place plan, from in to out.
  virtual void c2c(Complex<T>* in, Complex<T>* out, bool forward) = 0;
  virtual std::size_t work_bytes() const { return 0; }
  virtual void set_work_area(void* /*area*/) {}
};

/// The build's library plan for a resolved layout (throws eddy::Error where the build has none).
template <class T>
std::unique_ptr<LibraryPlan<T>> make_library_plan(FftKind kind, const FftLayout& layout,
                                                  const FftShape& shape);

/// The definition of make_library_plan, for float and double, as the library plan class template
/// `Plan` constructed from (kind, layout, shape): what each library file (fft_fftw.cpp, fft_gpu.cpp,
/// fft_none.cpp) gives inside namespace detail.
#define EDDY_FFT_LIBRARY_PLANS(Plan)                                                                 \
  template <class T>                                                                                 \
  std::unique_ptr<LibraryPlan<T>> make_library_plan(FftKind kind, const FftLayout& layout,           \
                                                    const FftShape& shape) {                         \
    return std::make_unique<Plan<T>>(kind, layout, shape);                                           \
  }                                                                                                  \
  template std::unique_ptr<LibraryPlan<float>> make_library_plan<float>(FftKind, const FftLayout&,   \
                                                                        const FftShape&);            \
  template std::unique_ptr<LibraryPlan<double>> make_library_plan<double>(FftKind, const FftLayout&, \
                                                                          const FftShape&);

}  // namespace detail

/// A plan for one kind of batched transform in precision T (float or double).
template <class T>
class FftPlan {
 public:
  /// Create the plan (throws eddy::Error where the build has no FFT library, or the library refuses).
  FftPlan(FftKind kind, const FftLayout& layout);

  /// r2c plans: real `in` -> complex `out`.
  void execute(const T* in, Complex<T>* out) const;
  /// c2r plans: complex `in` (overwritten) -> real `out`.
  void execute(Complex<T>* in, T* out) const;
  /// c2c plans: in place.
  void execute(Complex<T>* data) const;
  /// c2c plans made out of place (FftLayout::out_of_place): `in` (may be overwritten) -> `out`.
  void execute_out_of_place(Complex<T>* in, Complex<T>* out) const;

  /// Device work memory the plan needs during execution, bytes (0 on the CPU).
  std::size_t work_bytes() const { return plan_->work_bytes(); }
  /// Give the plan its work memory (at least work_bytes(), device memory); it must outlive every
  /// execution. Plans of one solver may share one area, as they never run concurrently.
  void set_work_area(void* area) { plan_->set_work_area(area); }
  FftKind kind() const { return kind_; }

 private:
  FftKind kind_;
  bool out_of_place_;
  std::unique_ptr<detail::LibraryPlan<T>> plan_;
};

extern template class FftPlan<float>;
extern template class FftPlan<double>;

}  // namespace eddy::backend
