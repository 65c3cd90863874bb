#pragma once
/// Dataset checksums that do not depend on how the data were decomposed over ranks.
///
/// Scheme "eddy-cellsum-1": for every element e of a dataset, with i its flat index in the global
/// dataset in C order (component axis included) and b the bit pattern of its stored value
/// zero-extended to 64 bits (a float contributes its 32 bits),
///
///     checksum = sum_e  fmix64(b + fmix64(i + 0x9E3779B97F4A7C15))   (mod 2^64)
///
/// where fmix64 is the MurmurHash3 / SplitMix64 finaliser, a bijection on 64-bit words. A sum is
/// order-independent, so each rank sums over its own hyperslab and the partial sums are added
/// (MPI_SUM on uint64 wraps modulo 2^64): the result is the same for every rank count, decomposition
/// and write path. Because each term is a bijection of b for fixed i, changing any single value (one
/// flipped bit, a NaN payload) always changes the checksum; several changes cancel with probability
/// about 2^-64. Moving a value to another index changes it too, since i enters every term.
/// It guards against torn or corrupted files, not against an adversary.
#include <cstdint>
#include <cstring>

#include "io/hdf5/block.hpp"

namespace eddy::io {

/// Name stored beside the value (attribute `checksum_scheme`) so a future scheme can coexist.
inline constexpr const char* checksum_scheme = "eddy-cellsum-1";

/// MurmurHash3 64-bit finaliser (also SplitMix64's output function).
inline std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb93fe53a87ebULL;
  k ^= k >> 33;
  return k;
}

/// One element's term of the checksum.
inline std::uint64_t checksum_term(std::uint64_t flat_index, std::uint64_t bits) {
  return fmix64(bits + fmix64(flat_index + 0x9E3779B97F4A7C15ULL));
}

/// The bit pattern of a value zero-extended to 64 bits (types of 1, 2, 4 or 8 bytes).
template <class T>
inline std::uint64_t value_bits(const T& v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else if constexpr (sizeof(T) == 2) {
    std::uint16_t b;
    std::memcpy(&b, &v, 2);
    return b;
  } else {
    std::uint8_t b;
    std::memcpy(&b, &v, 1);
    return b;
  }
}

/// Partial checksum of one rank's box: `local` is laid out as Block describes (x fastest, components
/// of a cell adjacent), `ncomp` = 0 for scalars. Add the partial sums of all ranks for the total.
template <class T>
std::uint64_t block_checksum(const T* local, const Block& b, int ncomp) {
  const auto nc = static_cast<std::uint64_t>(ncomp > 0 ? ncomp : 1);
  const auto gx = static_cast<std::uint64_t>(b.global[0]);
  const auto gy = static_cast<std::uint64_t>(b.global[1]);
  std::uint64_t sum = 0;
  std::uint64_t n = 0;
  for (index_t k = 0; k < b.extent[2]; ++k) {
    for (index_t j = 0; j < b.extent[1]; ++j) {
      const auto row =
          (static_cast<std::uint64_t>(b.offset[2] + k) * gy + static_cast<std::uint64_t>(b.offset[1] + j)) *
          gx;
      for (index_t i = 0; i < b.extent[0]; ++i) {
        const std::uint64_t cell = row + static_cast<std::uint64_t>(b.offset[0] + i);
        for (std::uint64_t c = 0; c < nc; ++c, ++n) sum += checksum_term(cell * nc + c, value_bits(local[n]));
      }
    }
  }
  return sum;
}

/// Checksum of a contiguous run of a dataset's elements in C order starting at flat index `first`.
template <class T>
std::uint64_t range_checksum(const T* values, std::uint64_t count, std::uint64_t first) {
  std::uint64_t sum = 0;
  for (std::uint64_t n = 0; n < count; ++n) sum += checksum_term(first + n, value_bits(values[n]));
  return sum;
}

}  // namespace eddy::io
