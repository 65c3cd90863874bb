// LTO load callbacks for cuFFT (experiment: scripts/experiments/cufft_masked_load/build.sh): read zero
// outside the kept box.
#include <cufftXt.h>
struct MaskInfo {
  unsigned long long base;  // logical offset of the exec pointer within the field
  unsigned nc, nb, na;      // extents [a][b][c], c fastest
  unsigned kc, kb, ka;      // kept extents (c: half axis keeps [0,kc]; b, a: full axes keep [0,k] U [n-k,n))
  unsigned mask;            // bit 0: c, bit 1: b, bit 2: a
};
// Element `offset` of the input, or zero outside the box; the position split with index type I (64 bits,
// or 32 where the field has fewer than 2^32 elements).
template <class I>
__device__ __forceinline__ cufftComplex masked(void* in, unsigned long long offset, void* info) {
  const MaskInfo& m = *static_cast<const MaskInfo*>(info);
  const I p = I(m.base) + I(offset);
  const unsigned q = unsigned(p / m.nc), c = unsigned(p - I(q) * m.nc);
  const unsigned a = q / m.nb, b = q - a * m.nb;
  bool out = false;
  if (m.mask & 1u) out |= c > m.kc;
  if (m.mask & 2u) out |= b > m.kb && b < m.nb - m.kb;
  if (m.mask & 4u) out |= a > m.ka && a < m.na - m.ka;
  if (out) return cufftComplex{0.f, 0.f};
  return static_cast<const cufftComplex*>(in)[offset];
}
__device__ cufftComplex eddy_mask_load_c(void* in, unsigned long long offset, void* info, void*) {
  return masked<unsigned long long>(in, offset, info);
}
__device__ cufftComplex eddy_mask32_load_c(void* in, unsigned long long offset, void* info, void*) {
  return masked<unsigned>(in, offset, info);
}
__device__ cufftComplex eddy_pass_load_c(void* in, unsigned long long offset, void*, void*) {
  return static_cast<const cufftComplex*>(in)[offset];
}
