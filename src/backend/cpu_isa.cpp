// The instruction-set check of the CPU backend (cpu_isa.hpp). This file alone is compiled for the
// baseline x86-64 (CMakeLists.txt: EDDY_CPU_ARCH), so it runs on any x86-64 CPU.
#include "backend/cpu_isa.hpp"

#include <cstdio>
#include <cstdlib>

#include "backend/macros.hpp"

namespace eddy::backend::detail {

namespace {
struct Named {
  CpuIsa bit;
  const char* name;
};
constexpr Named kIsa[] = {
#define EDDY_CPU_ISA_NAMED(id, name) {isa_##id, name},
    EDDY_CPU_ISA_LIST(EDDY_CPU_ISA_NAMED)
#undef EDDY_CPU_ISA_NAMED
};
}  // namespace

unsigned supported_isa() {
  unsigned m = 0;
// Not in GPU builds, whose host code is compiled for the baseline (and whose device pass, which clang runs
// over this file too, has no such builtin).
#if !EDDY_GPU && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // __builtin_cpu_supports takes a string literal only: the list's.
#define EDDY_CPU_ISA_SUPPORTS(id, name) \
  if (__builtin_cpu_supports(name)) m |= isa_##id;
  EDDY_CPU_ISA_LIST(EDDY_CPU_ISA_SUPPORTS)
#undef EDDY_CPU_ISA_SUPPORTS
#endif
  return m;
}

std::string isa_names(unsigned mask) {
  std::string s;
  for (const Named& n : kIsa) {
    if (mask & n.bit) s += (s.empty() ? "" : " ") + std::string(n.name);
  }
  return s;
}

std::string isa_mismatch(unsigned compiled, unsigned supported) {
  const unsigned missing = compiled & ~supported;
  if (!missing) return "";
  return "eddy: this CPU lacks instructions the build uses (" + isa_names(missing) +
         "): eddy was compiled for another CPU (CMake EDDY_CPU_ARCH, e.g. native on a login node unlike the "
         "compute nodes). Build it on a node like the ones that run it, or with -DEDDY_CPU_ARCH=<their "
         "architecture> (e.g. x86-64-v3, znver3, sapphirerapids), or empty for any x86-64.\n";
}

#if !EDDY_GPU
namespace {
// Before every other constructor of eddy's code (priority 101 precedes the default), which the compiler
// may already have given the instructions in question.
__attribute__((constructor(101))) void check_isa() {
  const std::string message = isa_mismatch(compiled_isa, supported_isa());
  if (message.empty()) return;
  std::fputs(message.c_str(), stderr);
  std::_Exit(1);
}
}  // namespace
#else
// The GPU backends' host code is compiled for the baseline: nothing to check.
extern const unsigned compiled_isa = 0;
#endif

}  // namespace eddy::backend::detail
