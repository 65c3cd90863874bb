// The instruction-set check of the CPU backend (backend/cpu_isa.hpp): the names of the sets, the message
// for a CPU that lacks some of what the build uses (only those named, and what to do), and none on this
// machine, which runs the tests, so has what the build uses.
#include <gtest/gtest.h>

#include <string>

#include "backend/cpu_isa.hpp"

namespace eddy::backend::detail {
namespace {

TEST(CpuIsa, NamesTheSetsInOrder) {
  EXPECT_EQ(isa_names(0), "");
  EXPECT_EQ(isa_names(isa_avx2 | isa_sse3), "sse3 avx2");
  EXPECT_EQ(isa_names(isa_avx512vl | isa_avx512f | isa_fma), "fma avx512f avx512vl");
}

TEST(CpuIsa, AMissingSetIsNamedWithTheRemedy) {
  const unsigned built = isa_sse3 | isa_avx | isa_avx2 | isa_avx512f | isa_avx512bw;
  const std::string m = isa_mismatch(built, isa_sse3 | isa_avx | isa_avx2);
  EXPECT_NE(m.find("(avx512f avx512bw)"), std::string::npos) << m;
  EXPECT_NE(m.find("EDDY_CPU_ARCH"), std::string::npos) << m;
  EXPECT_EQ(isa_mismatch(built, built), "");
  EXPECT_EQ(isa_mismatch(0, 0), "");
  EXPECT_EQ(isa_mismatch(isa_avx2, isa_avx2 | isa_avx512f), "");
}

TEST(CpuIsa, ThisCpuHasWhatTheBuildUses) {
  EXPECT_EQ(isa_mismatch(compiled_isa, supported_isa()), "")
      << "built for " << isa_names(compiled_isa) << "; the CPU has " << isa_names(supported_isa());
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__) && !defined(__HIPCC__)
  EXPECT_NE(supported_isa() & isa_sse3, 0u) << "every x86-64 CPU of the last 15 years has SSE3";
#endif
}

}  // namespace
}  // namespace eddy::backend::detail
