#pragma once
/// The x86 instruction sets the CPU backend's code was compiled for (EDDY_CPU_ARCH) against those of the
/// CPU that runs it. A binary built with -march=native on a login node with AVX-512 dies of SIGILL on
/// compute nodes without it, somewhere in the first vector loop; cpu_isa.cpp, compiled for the baseline
/// x86-64 whatever EDDY_CPU_ARCH says, checks before anything else of eddy runs and names what is missing.
#include <string>

namespace eddy::backend::detail {

/// The instruction sets that -march may turn on and that GCC's and Clang's __builtin_cpu_supports name,
/// in CpuIsa order: X(id, name) gives the bit isa_<id> and its name, a string literal (the builtin takes
/// nothing else), which isa_names prints too. The one list of the enum, the names and the CPU's query
/// (cpu_isa.cpp); backend_cpu.cpp maps the compiler's macros onto the bits.
#define EDDY_CPU_ISA_LIST(X) \
  X(sse3, "sse3")            \
  X(ssse3, "ssse3")          \
  X(sse4_1, "sse4.1")        \
  X(sse4_2, "sse4.2")        \
  X(popcnt, "popcnt")        \
  X(avx, "avx")              \
  X(avx2, "avx2")            \
  X(fma, "fma")              \
  X(bmi2, "bmi2")            \
  X(avx512f, "avx512f")      \
  X(avx512cd, "avx512cd")    \
  X(avx512bw, "avx512bw")    \
  X(avx512dq, "avx512dq")    \
  X(avx512vl, "avx512vl")

/// The position of each set in the list, and their number.
enum CpuIsaIndex : unsigned {
#define EDDY_CPU_ISA_INDEX(id, name) isa_index_##id,
  EDDY_CPU_ISA_LIST(EDDY_CPU_ISA_INDEX) isa_count
#undef EDDY_CPU_ISA_INDEX
};
static_assert(isa_count <= 32, "one bit per set in an unsigned");

/// One bit per set.
enum CpuIsa : unsigned {
#define EDDY_CPU_ISA_BIT(id, name) isa_##id = 1u << isa_index_##id,
  EDDY_CPU_ISA_LIST(EDDY_CPU_ISA_BIT)
#undef EDDY_CPU_ISA_BIT
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
