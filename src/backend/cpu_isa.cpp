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
constexpr Named kIsa[] = {{isa_sse3, "sse3"},         {isa_ssse3, "ssse3"},       {isa_sse4_1, "sse4.1"},
                          {isa_sse4_2, "sse4.2"},     {isa_popcnt, "popcnt"},     {isa_avx, "avx"},
                          {isa_avx2, "avx2"},         {isa_fma, "fma"},           {isa_bmi2, "bmi2"},
                          {isa_avx512f, "avx512f"},   {isa_avx512cd, "avx512cd"}, {isa_avx512bw, "avx512bw"},
                          {isa_avx512dq, "avx512dq"}, {isa_avx512vl, "avx512vl"}};
}  // namespace

unsigned supported_isa() {
  unsigned m = 0;
// Not in GPU builds, whose host code is compiled for the baseline (and whose device pass, which clang runs
// over this file too, has no such builtin).
#if !EDDY_GPU && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // __builtin_cpu_supports takes a string literal only.
  if (__builtin_cpu_supports("sse3")) m |= isa_sse3;
  if (__builtin_cpu_supports("ssse3")) m |= isa_ssse3;
  if (__builtin_cpu_supports("sse4.1")) m |= isa_sse4_1;
  if (__builtin_cpu_supports("sse4.2")) m |= isa_sse4_2;
  if (__builtin_cpu_supports("popcnt")) m |= isa_popcnt;
  if (__builtin_cpu_supports("avx")) m |= isa_avx;
  if (__builtin_cpu_supports("avx2")) m |= isa_avx2;
  if (__builtin_cpu_supports("fma")) m |= isa_fma;
  if (__builtin_cpu_supports("bmi2")) m |= isa_bmi2;
  if (__builtin_cpu_supports("avx512f")) m |= isa_avx512f;
  if (__builtin_cpu_supports("avx512cd")) m |= isa_avx512cd;
  if (__builtin_cpu_supports("avx512bw")) m |= isa_avx512bw;
  if (__builtin_cpu_supports("avx512dq")) m |= isa_avx512dq;
  if (__builtin_cpu_supports("avx512vl")) m |= isa_avx512vl;
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
