// backend::copy_3d_on_device and fill_zero_3d (a kernel on GPUs, memcpy rows on the CPU) against the same
// block moved on the host: every word width the GPU kernel picks (16, 8, 4, 2 and 1 bytes, by the
// alignment of the addresses, pitches, slices and width), rows longer than one warp's piece, and the bytes
// around the block untouched.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace eddy {
namespace {

struct Case {
  std::size_t dst_offset, src_offset;
  backend::Strides dst, src;
  backend::Extent extent;
};

std::string describe(const Case& c) {
  return "offsets " + std::to_string(c.dst_offset) + "/" + std::to_string(c.src_offset) + ", pitches " +
         std::to_string(c.dst.pitch) + "/" + std::to_string(c.src.pitch) + ", width " +
         std::to_string(c.extent.width) + ", rows " + std::to_string(c.extent.rows) + ", depth " +
         std::to_string(c.extent.depth);
}

std::vector<Case> cases() {
  return {
      {0, 0, {64, 64 * 3}, {96, 96 * 4}, {48, 3, 4}},              // 16-byte words
      {16, 32, {4160, 4160 * 2}, {4128, 4128 * 3}, {4096, 2, 3}},  // rows longer than a warp's piece
      {8, 24, {40, 40 * 5}, {56, 56 * 5}, {24, 5, 2}},             // 8-byte words
      {4, 12, {36, 36 * 2}, {44, 0}, {20, 7, 1}},                  // 4-byte words, one slice
      {2, 6, {30, 30 * 3}, {34, 34 * 3}, {10, 3, 3}},              // 2-byte words
      {3, 5, {37, 37 * 4}, {29, 29 * 5}, {13, 4, 3}},              // bytes
  };
}

std::size_t span(std::size_t offset, backend::Strides s, backend::Extent x) {
  return offset + (x.depth - 1) * s.slice + (x.rows - 1) * s.pitch + x.width;
}

TEST(StridedCopy, CopiesAndZeroesExactlyTheBlock) {
  for (const Case& c : cases()) {
    const std::size_t nd = span(c.dst_offset, c.dst, c.extent) + 64,
                      ns = span(c.src_offset, c.src, c.extent) + 64;
    std::vector<char> hs(ns), hd(nd);
    for (std::size_t i = 0; i < ns; ++i) hs[i] = static_cast<char>(i * 7 + 1);
    for (std::size_t i = 0; i < nd; ++i) hd[i] = static_cast<char>(i * 13 + 5);
    backend::DeviceArray<char> src(ns), dst(nd);
    src.from_host(hs);
    dst.from_host(hd);
    backend::copy_3d_on_device(dst.data() + c.dst_offset, c.dst, src.data() + c.src_offset, c.src, c.extent);
    std::vector<char> want = hd, zeroed = hd;
    for (std::size_t z = 0; z < c.extent.depth; ++z)
      for (std::size_t y = 0; y < c.extent.rows; ++y)
        for (std::size_t x = 0; x < c.extent.width; ++x) {
          const std::size_t d = c.dst_offset + z * c.dst.slice + y * c.dst.pitch + x;
          want[d] = hs[c.src_offset + z * c.src.slice + y * c.src.pitch + x];
          zeroed[d] = 0;
        }
    EXPECT_EQ(dst.to_host(), want) << "copy: " << describe(c);
    dst.from_host(hd);
    backend::fill_zero_3d(dst.data() + c.dst_offset, c.dst, c.extent);
    EXPECT_EQ(dst.to_host(), zeroed) << "fill: " << describe(c);
  }
}

// copy_on_device of a block large enough to be split between threads (the CPU backend copies from 4 MiB
// in one range per thread), at an odd length and offsets, and the bytes around it untouched.
TEST(DeviceCopy, LargeCopiesAreExactAndStayInTheirBlock) {
  for (const std::size_t bytes : {std::size_t(1) << 22, (std::size_t(5) << 21) + 77}) {
    const std::size_t n = bytes + 128;
    std::vector<char> hs(n), hd(n);
    for (std::size_t i = 0; i < n; ++i)
      hs[i] = static_cast<char>(i * 7 + 1), hd[i] = static_cast<char>(i * 13 + 5);
    backend::DeviceArray<char> src(n), dst(n);
    src.from_host(hs);
    dst.from_host(hd);
    backend::copy_on_device(dst.data() + 33, src.data() + 17, bytes);
    std::vector<char> want = hd;
    for (std::size_t i = 0; i < bytes; ++i) want[33 + i] = hs[17 + i];
    EXPECT_EQ(dst.to_host(), want) << bytes << " bytes";
  }
}

// fill_zero of a block of arrays over the same cells (part > 0: the CPU backend's first touch zeroes each
// thread's share of every array): every byte of the block zero, whether the parts divide it or not, and
// the bytes around it untouched; part 0 and a part longer than the block are one array.
TEST(DeviceCopy, FillZeroOfArraysZeroesTheWholeBlockAlone) {
  const std::size_t n = 3 * 4096 + 200;
  for (const std::size_t bytes :
       {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(3 * 4096 + 100)}) {
    for (const std::size_t part : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(4096),
                                   std::size_t(4099), std::size_t(1) << 20}) {
      std::vector<char> h(n, char(0x5a));
      backend::DeviceArray<char> a(n);
      a.from_host(h);
      backend::fill_zero(a.data() + 37, bytes, part);
      for (std::size_t i = 0; i < bytes; ++i) h[37 + i] = 0;
      EXPECT_EQ(a.to_host(), h) << bytes << " bytes in parts of " << part;
    }
  }
}

// The yardstick of eddy bench: every copy it tries gives a bandwidth, and the one it reports is the best
// of them, with its name.
TEST(DeviceCopy, CopyBandwidthIsTheBestOfItsCopies) {
  const backend::CopyBandwidth b = backend::copy_bandwidth(std::size_t(1) << 24, 2);
  ASSERT_FALSE(b.methods.empty());
  bool named = false;
  for (const auto& [method, gbs] : b.methods) {
    EXPECT_GT(gbs, 0.0) << method;
    EXPECT_LE(gbs, b.gbs) << method;
    named = named || method == b.method;
  }
  EXPECT_TRUE(named) << b.method;
  EXPECT_GT(backend::copy_bandwidth_parallel_for(std::size_t(1) << 24, 2), 0.0);
}

}  // namespace
}  // namespace eddy
