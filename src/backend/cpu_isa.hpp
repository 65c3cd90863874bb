#pragma once
/// The x86 instruction sets the CPU backend's code was compiled for (EDDY_CPU_ARCH) against those of the
/// CPU that runs it. A binary built with -march=native on a login node with AVX-512 dies of SIGILL on
/// compute nodes without it, somewhere in the first vector loop; cpu_isa.cpp, compiled for the baseline
/// x86-64 whatever EDDY_CPU_ARCH says, checks before anything else of eddy runs and names what is missing.
#include <string>

namespace eddy::backend::detail {

/// One bit per instruction set that -march may turn on and that GCC's and Clang's
/// __builtin_cpu_supports name (the name is the one in isa_names).
enum CpuIsa : unsigned {
  isa_sse3 = 1u << 0,
  isa_ssse3 = 1u << 1,
  isa_sse4_1 = 1u << 2,
  isa_sse4_2 = 1u << 3,
  isa_popcnt = 1u << 4,
  isa_avx = 1u << 5,
  isa_avx2 = 1u << 6,
  isa_fma = 1u << 7,
  isa_bmi2 = 1u << 8,
  isa_avx512f = 1u << 9,
  isa_avx512cd = 1u << 10,
  isa_avx512bw = 1u << 11,
  isa_avx512dq = 1u << 12,
  isa_avx512vl = 1u << 13,
};

/// The sets the backend's files were compiled for (backend_cpu.cpp: from the compiler's macros; 0 on the
/// GPU backends and off x86).
extern const unsigned compiled_isa;
/// The sets this CPU has (0 off x86 and in the GPU builds, which need no check).
unsigned supported_isa();
/// The names of the sets in `mask`, in CpuIsa order, space-separated ("" for none).
std::string isa_names(unsigned mask);
/// The message for a CPU that lacks sets the build uses ("" when it has them all).
std::string isa_mismatch(unsigned compiled, unsigned supported);

}  // namespace eddy::backend::detail
