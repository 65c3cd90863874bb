// The spectral solver on several ranks (ctest spectral_np1, spectral_np2, spectral_np3, spectral_np4):
//  - slab transposes move every element to where the layouts say (values encode their global index),
//    for even and uneven splits, several fields at once, 8- and 16-byte elements, and back; also with
//    several outer arrays and padded planes (the pencil decomposition's row and column transposes);
//    row-subset transposes (the pruned transforms') move exactly the kept b-rows and touch nothing else;
//  - the distributed FFT equals the one-rank FFT of the whole field, on every process grid of the rank
//    count (slab 1 x P, pencils P1 x P2: on 4 ranks 2 x 2 and 4 x 1, on 2 ranks 2 x 1), and so do the
//    pruned transforms (Modes::kept) inside the box of the dealiasing mask (2/3 rule and sphere; with the
//    compact b buffers, several fields, single precision);
//  - transposes with the b side in the compact layout move the kept rows into it (and out) as they are;
//  - whole runs (2D and 3D, RK3 and RK4, FP64) agree with a one-rank run of the same case to 1e-12
//    relative, on grids whose planes do not divide evenly over the ranks, slab and pencil (3D);
//  - the app's Taylor-Green 3D run on slabs (2/3 rule: pruned transposes; phase shifts) agrees with
//    the one-rank run; on pencils too (gathered velocity and the HDF5 field files), and checkpoints restart
//    across decompositions (slab <-> pencil <-> one rank);
//  - the Taylor-Green field sampled on the device (set_taylor_green) gives each rank the state that its part
//    of the host-built array gives through set_velocity, on slabs and pencils;
//  - bad decompositions are InputErrors naming the key.
// Each rank also runs the one-rank reference itself (LocalTransposeExchange), so no gathering is needed.
// Run: mpirun -n N ./eddy_mpi_spectral_tests
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/run.hpp"
#include "app/spectral_case.hpp"
#include "backend/backend.hpp"
#include "backend/fft.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/field_reader.hpp"
#include "parallel/comm.hpp"
#include "parallel/transpose.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectral_solver.hpp"
#include "tests/support/gather.hpp"
#include "tests/support/taylor_green_state.hpp"
#include "tests/support/transports.hpp"

namespace eddy {
namespace {

using backend::Complex;
using backend::DeviceArray;
using field::BlockSplit;

parallel::Comm world() { return parallel::Comm(MPI_COMM_WORLD); }

/// Exact equality of elements (doubles, or complex numbers holding codes).
bool same(double a, double b) { return a == b; }
bool same(const Complex<double>& a, const Complex<double>& b) { return a.re == b.re && a.im == b.im; }
template <class E>
E element(double v);
template <>
double element<double>(double v) {
  return v;
}
template <>
Complex<double> element<Complex<double>>(double v) {
  return {v, -v};
}

/// Global index of element (a, b, c) of field f, as a double (exact below 2^53).
double code(int f, index_t a, index_t b, index_t c, index_t nb, index_t nc) {
  return 1e6 * f + double((a * nb + b) * nc + c);
}

/// The shape of `outer` arrays per field of E; `b_pad` elements of padding after each outer array of the
/// b-slab layout (of `nbl` local rows), `a_pad` after each a-plane of the a-slab layout
/// (field::SlabShape's b_outer_stride and a_pitch).
template <class E>
field::SlabShape padded_shape(index_t na, index_t nb, index_t nc, index_t nbl, index_t outer, index_t b_pad,
                              index_t a_pad) {
  field::SlabShape s{na, nb, nc, sizeof(E)};
  s.outer = outer;
  s.b_outer_stride = b_pad ? na * nbl * nc + b_pad : 0;
  s.a_pitch = a_pad ? nb * nc + a_pad : 0;
  return s;
}

/// A transpose there and back of padded_shape's arrays.
template <class E>
void check_transpose(const std::string& mode, index_t na, index_t nb, index_t nc, int fields,
                     index_t outer = 1, index_t b_pad = 0, index_t a_pad = 0) {
  const parallel::Comm comm = world();
  parallel::MpiTransposeExchange ex(comm, test::make_transport(mode, comm));
  const int P = comm.size(), r = comm.rank();
  const index_t nal = BlockSplit::count(na, P, r), a0 = BlockSplit::start(na, P, r);
  const index_t nbl = BlockSplit::count(nb, P, r), b0 = BlockSplit::start(nb, P, r);
  const field::SlabShape s = padded_shape<E>(na, nb, nc, nbl, outer, b_pad, a_pad);
  const index_t ap = s.a_plane(), bo = na * nbl * nc + b_pad;
  const index_t in_stride = outer * nal * ap + 3, out_stride = outer * bo + 5;  // padded strides
  // Codes: the outer index counts as one more slow dimension (o * na + a).
  std::vector<E> h(static_cast<std::size_t>(in_stride * fields), element<E>(-1.0));
  for (int f = 0; f < fields; ++f)
    for (index_t o = 0; o < outer; ++o)
      for (index_t a = 0; a < nal; ++a)
        for (index_t b = 0; b < nb; ++b)
          for (index_t c = 0; c < nc; ++c)
            h[static_cast<std::size_t>(f * in_stride + (o * nal + a) * ap + b * nc + c)] =
                element<E>(code(f, o * na + a0 + a, b, c, nb, nc));
  DeviceArray<E> in, out(static_cast<std::size_t>(out_stride * fields)), back;
  in.from_host(h);
  back.from_host(h);
  ex.a_to_b(s, in.data(), in_stride, out.data(), out_stride, fields);
  const std::vector<E> o = out.to_host();
  long wrong = 0;
  for (int f = 0; f < fields; ++f)
    for (index_t u = 0; u < outer; ++u)
      for (index_t a = 0; a < na; ++a)
        for (index_t b = 0; b < nbl; ++b)
          for (index_t c = 0; c < nc; ++c)
            wrong += !same(o[static_cast<std::size_t>(f * out_stride + u * bo + (a * nbl + b) * nc + c)],
                           element<E>(code(f, u * na + a, b0 + b, c, nb, nc)));
  ex.b_to_a(s, out.data(), out_stride, back.data(), in_stride, fields);
  const std::vector<E> k = back.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) wrong += !same(k[i], h[i]);  // padding left as it was
  EXPECT_EQ(comm.sum(wrong), 0) << mode << ": " << outer << " x " << na << "x" << nb << "x" << nc
                                << " fields " << fields << " pads " << b_pad << ", " << a_pad;
}

// Every transport this build runs (tests/support/transports.hpp): host-staged MPI, MPI on the buffers
// as they are (on the CPU backend 'mpi-gpu' hands MPI the host arrays: CUDA-aware MPI's path), NCCL,
// peer copies (GPUs), and on the CPU backend one-sided rounds emulated by MPI messages (the path 'peer'
// takes).
TEST(SpectralMpi, TransposesPutEveryElementInPlace) {
  for (const std::string& mode : test::transpose_transports()) {
    check_transpose<double>(mode, 8, 8, 5, 1);
    check_transpose<double>(mode, 7, 9, 3, 3);  // uneven on 2 and 4 ranks
    check_transpose<Complex<double>>(mode, 4, 6, 1, 2);
    check_transpose<Complex<double>>(mode, 11, 5, 4, 1);
    check_transpose<Complex<double>>(mode, 3, 2, 4, 2);  // fewer planes than 4 ranks: empty blocks
    // The pencil's row transpose (outer z-planes, c = 1, padded b-side planes) and column transpose
    // (padded a-side planes).
    check_transpose<Complex<double>>(mode, 7, 5, 1, 2, 3, 4, 0);
    check_transpose<Complex<double>>(mode, 6, 9, 1, 1, 2, 0, 0);
    check_transpose<Complex<double>>(mode, 5, 7, 3, 2, 1, 0, 6);
    // Arrays of 2 MiB and more on every rank: 'peer' copies these one-sided (backend/peer_copy.hpp),
    // uneven on 4 ranks, padded a-side planes.
    check_transpose<Complex<double>>(mode, 97, 96, 40, 1);
    check_transpose<Complex<double>>(mode, 96, 97, 40, 1, 1, 0, 3);
  }
}

/// A transpose that moves only the b-rows of `ranges` (field::SlabShape::rows, global [lo, lo + count)):
/// those rows arrive where the layouts say (check_transpose's codes), and every other element of the
/// destination (the skipped rows of every plane, the padding) keeps the value it held, both ways. The
/// sources hold codes at every row, so a skipped row that moved would show. `compact`: the b side in the
/// compact layout (field::SlabShape::compact: [a][this rank's moved rows, range after range][c], one outer
/// array), the split form (start, finish) then of one field, the others left as they were.
template <class E>
void check_row_transpose(field::TransposeExchange& ex, const std::string& what, index_t na, index_t nb,
                         index_t nc, int fields, const std::vector<field::RowRange>& ranges,
                         index_t outer = 1, index_t b_pad = 0, index_t a_pad = 0, bool compact = false) {
  const int P = ex.ranks(), r = ex.rank();
  const index_t nal = BlockSplit::count(na, P, r), a0 = BlockSplit::start(na, P, r);
  const index_t nbl = BlockSplit::count(nb, P, r), b0 = BlockSplit::start(nb, P, r);
  field::SlabShape s = padded_shape<E>(na, nb, nc, nbl, outer, b_pad, a_pad);
  s.row_ranges = static_cast<int>(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) s.rows[i] = ranges[i];
  s.compact = compact;
  auto moved = [&](index_t b) {
    for (const field::RowRange& k : ranges)
      if (b >= k.lo && b < k.lo + k.count) return true;
    return false;
  };
  std::vector<index_t> b_rows;  // the global rows of the b layout's planes, in order
  for (index_t b = b0; b < b0 + nbl; ++b)
    if (!compact || moved(b)) b_rows.push_back(b);
  const auto nr = static_cast<index_t>(b_rows.size());
  const index_t ap = s.a_plane(), bo = na * nr * nc + (compact ? 0 : b_pad);
  const index_t a_stride = outer * nal * ap + 3, b_stride = outer * bo + 5;  // padded strides
  const E untouched = element<E>(-1.0);
  // Both layouts with the codes of every element (the sources), and where each element sits.
  std::vector<E> a_codes(static_cast<std::size_t>(a_stride * fields), untouched),
      b_codes(static_cast<std::size_t>(b_stride * fields), untouched);
  std::vector<char> a_moved(a_codes.size(), 0), b_moved(b_codes.size(), 0);
  for (int f = 0; f < fields; ++f)
    for (index_t o = 0; o < outer; ++o) {
      for (index_t a = 0; a < nal; ++a)
        for (index_t b = 0; b < nb; ++b)
          for (index_t c = 0; c < nc; ++c) {
            const auto i = static_cast<std::size_t>(f * a_stride + (o * nal + a) * ap + b * nc + c);
            a_codes[i] = element<E>(code(f, o * na + a0 + a, b, c, nb, nc));
            a_moved[i] = moved(b);
          }
      for (index_t a = 0; a < na; ++a)
        for (index_t k = 0; k < nr; ++k)
          for (index_t c = 0; c < nc; ++c) {
            const auto i = static_cast<std::size_t>(f * b_stride + o * bo + (a * nr + k) * nc + c);
            const index_t b = b_rows[static_cast<std::size_t>(k)];
            b_codes[i] = element<E>(code(f, o * na + a, b, c, nb, nc));
            b_moved[i] = moved(b);
          }
    }
  long wrong = 0;
  // The first `count` fields moved, the others untouched.
  auto check = [&](const std::vector<E>& got, const std::vector<E>& codes, const std::vector<char>& in,
                   index_t stride, int count) {
    for (std::size_t i = 0; i < got.size(); ++i)
      wrong += !same(got[i], in[i] && index_t(i) < stride * count ? codes[i] : untouched);
  };
  DeviceArray<E> a_in, b_in, a_out(a_codes.size()), b_out(b_codes.size());
  a_in.from_host(a_codes);
  b_in.from_host(b_codes);
  const std::vector<E> a_blank(a_codes.size(), untouched), b_blank(b_codes.size(), untouched);
  a_out.from_host(a_blank);
  b_out.from_host(b_blank);
  ex.a_to_b(s, a_in.data(), a_stride, b_out.data(), b_stride, fields);
  check(b_out.to_host(), b_codes, b_moved, b_stride, fields);
  ex.b_to_a(s, b_in.data(), b_stride, a_out.data(), a_stride, fields);
  check(a_out.to_host(), a_codes, a_moved, a_stride, fields);
  // The split form (start, then finish), as the overlapped transforms call it.
  const int split = compact ? 1 : fields;
  a_out.from_host(a_blank);
  b_out.from_host(b_blank);
  ex.start(true, s, a_in.data(), a_stride, b_out.data(), b_stride, split);
  ex.finish();
  check(b_out.to_host(), b_codes, b_moved, b_stride, split);
  ex.start(false, s, b_in.data(), b_stride, a_out.data(), a_stride, split);
  ex.finish();
  check(a_out.to_host(), a_codes, a_moved, a_stride, split);
  long moved_rows = 0;
  for (index_t b = 0; b < nb; ++b) moved_rows += moved(b);
  EXPECT_EQ(world().sum(wrong), 0) << what << (compact ? " compact" : "") << ": " << outer << " x " << na
                                   << "x" << nb << "x" << nc << " fields " << fields << ", " << moved_rows
                                   << " rows moved, pads " << b_pad << ", " << a_pad;
}

/// Every transport of this build (MpiTransposeExchange; transpose_transports) and the one-rank exchange.
std::vector<std::pair<std::string, std::unique_ptr<field::TransposeExchange>>> every_exchange() {
  std::vector<std::pair<std::string, std::unique_ptr<field::TransposeExchange>>> exchanges;
  for (const std::string& mode : test::transpose_transports())
    exchanges.emplace_back(
        mode, std::make_unique<parallel::MpiTransposeExchange>(world(), test::make_transport(mode, world())));
  exchanges.emplace_back("local", std::make_unique<field::LocalTransposeExchange>());
  return exchanges;
}

/// Row-subset transposes on every transport of this build and the one-rank exchange: ranges that give
/// ranks all, some (one or both ranges cut) or none of their rows on 2, 3 and 4 ranks (nb = 9 over 4:
/// 0-2, 3-4, 5-6, 7-8), uneven splits, one or two ranges, several outer arrays with padded planes.
TEST(SpectralMpi, RowSubsetTransposesMoveOnlyTheKeptRows) {
  for (auto& [what, ex] : every_exchange()) {
    check_row_transpose<double>(*ex, what, 7, 9, 3, 2, {{0, 3}, {6, 3}});  // the 2/3 rule's shape (3D)
    check_row_transpose<double>(*ex, what, 8, 9, 2, 1, {{0, 4}, {7, 2}});
    check_row_transpose<Complex<double>>(*ex, what, 6, 7, 1, 2, {{0, 4}});  // 2D: kx <= K
    check_row_transpose<Complex<double>>(*ex, what, 5, 6, 2, 1, {{2, 2}});  // one range inside
    check_row_transpose<Complex<double>>(*ex, what, 5, 9, 4, 2, {{0, 2}, {5, 4}}, 2, 4, 3);
    check_row_transpose<Complex<double>>(*ex, what, 3, 8, 2, 1, {{1, 3}, {6, 1}}, 3, 0, 5);
  }
}

/// The compact b layout on every transport and the one-rank exchange, with the row-subset cases' ranges:
/// on 1 to 4 ranks, ranks with all, part (one range cut, or both ranges: one rank) or none of their rows
/// (nb = 9 over 3: rows 3-5 keep none of {0, 3}, {6, 3}).
TEST(SpectralMpi, CompactTransposesReceiveAndSendTheKeptRowsAsTheyAre) {
  for (auto& [what, ex] : every_exchange()) {
    check_row_transpose<double>(*ex, what, 7, 9, 3, 2, {{0, 3}, {6, 3}}, 1, 0, 0, true);
    check_row_transpose<double>(*ex, what, 8, 9, 2, 1, {{0, 4}, {7, 2}}, 1, 0, 0, true);
    check_row_transpose<Complex<double>>(*ex, what, 6, 7, 1, 3, {{0, 4}}, 1, 0, 0, true);
    check_row_transpose<Complex<double>>(*ex, what, 5, 9, 4, 2, {{0, 2}, {5, 4}}, 1, 0, 3, true);
    check_row_transpose<Complex<double>>(*ex, what, 3, 8, 2, 1, {{1, 3}, {6, 1}}, 1, 0, 5, true);
    // 2 MiB and more a rank (the kept rows of 2/3-rule ky on 2 and 4 ranks): 'peer' copies one-sided.
    check_row_transpose<Complex<double>>(*ex, what, 96, 128, 33, 2, {{0, 43}, {86, 42}}, 1, 0, 0, true);
  }
}

/// Largest |distributed - serial| over this rank's values, relative to the largest |serial| (all ranks).
double relative_difference(const std::vector<double>& dist, const std::vector<double>& serial_local) {
  double d = 0, m = 0;
  for (std::size_t k = 0; k < dist.size(); ++k) {
    d = std::max(d, std::fabs(dist[k] - serial_local[k]));
    m = std::max(m, std::fabs(serial_local[k]));
  }
  const parallel::Comm comm = world();
  return comm.max(d) / comm.max(m);
}

/// The part of a whole-grid array (x fastest, ncomp per point) that this rank holds: a-planes
/// a0 .. a0 + na_local (slab), of those the y-rows y0 .. y0 + ny_local (3D pencil).
std::vector<double> slab_of(const std::vector<double>& whole, const spectral::Grid& g, int ncomp) {
  std::vector<double> part;
  const index_t rows = g.dims == 3 ? g.n[1] : 1, row = g.plane / (g.dims == 3 ? g.ny_local : 1);
  for (index_t a = g.a0; a < g.a0 + g.na_local; ++a)
    for (index_t y = g.dims == 3 ? g.y0 : 0; y < (g.dims == 3 ? g.y0 + g.ny_local : 1); ++y) {
      const auto begin = whole.begin() + static_cast<std::ptrdiff_t>((a * rows + y) * row * ncomp);
      part.insert(part.end(), begin, begin + static_cast<std::ptrdiff_t>(row * ncomp));
    }
  return part;
}

/// Every process grid P1 x P2 of the rank count with P1 > 1 (pencils; 3D).
std::vector<int> pencil_rows() {
  std::vector<int> p1s;
  for (int p1 = 2; p1 <= world().size(); ++p1)
    if (world().size() % p1 == 0) p1s.push_back(p1);
  return p1s;
}

void check_distributed_fft(int dims, int grid_rows) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  const auto exchange = parallel::make_transpose_exchange("mpi", comm, grid_rows);
  field::TransposeExchange& ex = *exchange;
  field::LocalTransposeExchange local;
  {
    const Int3 n = dims == 3 ? Int3{12, 10, 9} : Int3{20, 14, 1};
    const Real3 L{1.0, 2.0, 3.0};
    const spectral::Grid g = spectral::Grid::make(dims, n, L, ex);
    const spectral::Grid g1 = spectral::Grid::make(dims, n, L, 1, 0);
    spectral::SlabFft<double> fft(g, ex), fft1(g1, local);
    std::vector<double> whole(static_cast<std::size_t>(g1.points()));
    for (std::size_t i = 0; i < whole.size(); ++i)
      whole[i] = std::sin(0.37 * double(i)) + 0.1 * double(i % 7);
    DeviceArray<double> p, p1;
    p.from_host(slab_of(whole, g, 1));
    p1.from_host(whole);
    DeviceArray<Complex<double>> c(static_cast<std::size_t>(fft.complex_stride())),
        c1(static_cast<std::size_t>(fft1.complex_stride()));
    fft.forward(p.data(), c.data(), 1);
    fft1.forward(p1.data(), c1.data(), 1);
    // Serial spectrum restricted to this rank's block: [a][b0 .. b0 + nb_local][c0 .. c0 + nc_local].
    const auto s1 = c1.to_host(), s = c.to_host();
    std::vector<double> mine, ref;
    for (index_t a = 0; a < g.na; ++a)
      for (index_t b = 0; b < g.nb_local; ++b)
        for (index_t k = 0; k < g.nc_local; ++k) {
          const auto& x = s[static_cast<std::size_t>((a * g.nb_local + b) * g.nc_local + k)];
          const auto& y = s1[static_cast<std::size_t>((a * g.nb + g.b0 + b) * g.nc + g.c0 + k)];
          mine.push_back(x.re), mine.push_back(x.im), ref.push_back(y.re), ref.push_back(y.im);
        }
    EXPECT_LT(relative_difference(mine, ref), 1e-14) << dims << "D forward";
    fft.backward(c.data(), p.data(), 1);
    std::vector<double> back = p.to_host();
    back.resize(static_cast<std::size_t>(g.points()));
    for (double& v : back) v /= double(g.total_points());
    EXPECT_LT(relative_difference(back, slab_of(whole, g, 1)), 1e-14) << dims << "D round trip";
  }
}

/// Overlapped transposes (field by field, each in flight during the next field's transforms) give bitwise
/// the batched result, forward and backward, slab and pencil.
void check_overlap_exact(int dims, int grid_rows) {
  if (!backend::fft_available()) GTEST_SKIP();
  const auto exchange = parallel::make_transpose_exchange("mpi", world(), grid_rows);
  const Int3 n = dims == 3 ? Int3{12, 10, 9} : Int3{20, 14, 1};
  const spectral::Grid g = spectral::Grid::make(dims, n, {1.0, 2.0, 3.0}, *exchange);
  spectral::SlabFft<double> overlapped(g, *exchange, true), batched(g, *exchange, false);
  const int fields = 3;
  std::vector<double> h(static_cast<std::size_t>(overlapped.real_stride() * fields));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::cos(0.11 * double(i + 97 * world().rank()));
  DeviceArray<double> p, q(h.size()), r(h.size());
  p.from_host(h);
  DeviceArray<Complex<double>> a(static_cast<std::size_t>(overlapped.complex_stride() * fields)), b(a.size());
  overlapped.forward(p.data(), a.data(), fields);
  batched.forward(p.data(), b.data(), fields);
  long wrong = 0;
  const auto ha = a.to_host(), hb = b.to_host();
  for (int f = 0; f < fields; ++f)
    for (index_t m = 0; m < g.modes(); ++m)
      wrong += !same(ha[f * overlapped.complex_stride() + m], hb[f * overlapped.complex_stride() + m]);
  overlapped.backward(a.data(), q.data(), fields);
  batched.backward(b.data(), r.data(), fields);
  const auto hq = q.to_host(), hr = r.to_host();
  for (int f = 0; f < fields; ++f)
    for (index_t i = 0; i < g.points(); ++i)
      wrong += hq[f * overlapped.real_stride() + i] != hr[f * overlapped.real_stride() + i];
  EXPECT_EQ(world().sum(wrong), 0) << dims << "D, " << grid_rows << " x " << world().size() / grid_rows;
}

TEST(SpectralMpi, OverlappedTransposesAreExact) {
  check_overlap_exact(2, 1);
  check_overlap_exact(3, 1);
  for (int p1 : pencil_rows()) check_overlap_exact(3, p1);
}

TEST(SpectralMpi, DistributedFftEqualsTheSerialOne) {
  check_distributed_fft(2, 1);
  check_distributed_fft(3, 1);
}
TEST(SpectralMpi, PencilFftEqualsTheSerialOne) {
  for (int p1 : pencil_rows()) check_distributed_fft(3, p1);
}

/// Pruned distributed transforms (Modes::kept) against the full one-rank ones, on the slab and every
/// pencil grid: the forward transform at every mode of the box bounding the mask in this rank's block,
/// and the backward transform of the one-rank spectrum zeroed outside the mask. ny = 12 puts 0, 1 or 2
/// ranges of kept ky rows on a rank (2/3 rule: rows 0..3 and 9..11; 4 slabs of 3 rows: 0..2, 3..5 (one
/// kept), 6..8 (none), 9..11; the 2 x 1 and 4 x 1 pencils keep ky whole: both ranges), and nx = 12 (7
/// kx columns over P1 = 2 or 4) rows of pencils without kept kx columns. The slab ranks that keep part
/// of their rows transform along z out of the compact buffers (slab_fft.hpp); `fields` > 2 reuses them
/// (each field its own data); in single precision (7 kx columns: odd) the kept rows of the slab 6..11
/// start at an odd column of spec, so the buffers start one column in. The tolerance is the one-rank
/// test's (100 eps of T, relative, test_spectral.cpp), on the largest value.
template <class T>
void check_pruned_fft(int dims, int grid_rows, bool spherical, int fields = 1,
                      const std::string& mode = "mpi") {
  if (!backend::fft_available()) GTEST_SKIP();
  const auto exchange =
      grid_rows == 1 && world().size() > 1
          ? std::make_unique<parallel::MpiTransposeExchange>(world(), test::make_transport(mode, world()))
          : parallel::make_transpose_exchange(mode, world(), grid_rows);
  field::LocalTransposeExchange local;
  const Int3 n = dims == 3 ? Int3{12, 12, 9} : Int3{20, 14, 1};
  const Real3 L{1.0, 2.0, 3.0};
  const spectral::Grid g = spectral::Grid::make(dims, n, L, *exchange, spherical);
  const spectral::Grid g1 = spectral::Grid::make(dims, n, L, 1, 0, spherical);
  spectral::SlabFft<T> fft(g, *exchange), fft1(g1, local);
  const index_t rs = fft.real_stride(), cs = fft.complex_stride(), rs1 = fft1.real_stride(),
                cs1 = fft1.complex_stride();
  std::vector<T> part(static_cast<std::size_t>(rs * fields)), whole(static_cast<std::size_t>(rs1 * fields));
  for (int f = 0; f < fields; ++f) {
    std::vector<double> w(static_cast<std::size_t>(g1.points()));
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = std::sin(0.37 * double(i) + f) + 0.1 * double(i % (7 + f));
    const std::vector<double> mine = slab_of(w, g, 1);
    std::copy(w.begin(), w.end(), whole.begin() + f * rs1);
    std::copy(mine.begin(), mine.end(), part.begin() + f * rs);
  }
  DeviceArray<T> p, p1;
  p.from_host(part);
  p1.from_host(whole);
  DeviceArray<Complex<T>> c(static_cast<std::size_t>(cs * fields)),
      c1(static_cast<std::size_t>(cs1 * fields));
  fft.forward(p.data(), c.data(), fields, spectral::Modes::kept);
  fft1.forward(p1.data(), c1.data(), fields);
  const index_t e[3] = {g.kept_extent(0), g.kept_extent(1), dims == 3 ? g.kept_extent(2) : 0};
  const auto s = c.to_host();
  auto s1 = c1.to_host();
  std::vector<double> mine, ref;
  std::vector<Complex<T>> masked(c.size());  // this rank's block of the masked one-rank spectra
  for (int f = 0; f < fields; ++f)
    for (index_t a = 0; a < g.na; ++a)
      for (index_t b = 0; b < g.nb_local; ++b)
        for (index_t k = 0; k < g.nc_local; ++k) {
          const index_t m = (a * g.nb_local + b) * g.nc_local + k;
          index_t ix, iy, iz;
          g.wave(m, ix, iy, iz);
          const auto& x = s[static_cast<std::size_t>(f * cs + m)];
          const auto& y = s1[static_cast<std::size_t>(f * cs1 + (a * g.nb + g.b0 + b) * g.nc + g.c0 + k)];
          if (ix <= e[0] && std::abs(iy) <= e[1] && std::abs(iz) <= e[2])
            mine.push_back(x.re), mine.push_back(x.im), ref.push_back(y.re), ref.push_back(y.im);
          masked[static_cast<std::size_t>(f * cs + m)] = g.kept(ix, iy, iz) ? y : Complex<T>{0, 0};
        }
  const double eps = 100 * std::numeric_limits<T>::epsilon();
  const std::string what = mode + ", " + std::to_string(dims) + "D " + std::to_string(grid_rows) + " x " +
                           std::to_string(world().size() / grid_rows) + (spherical ? " sphere" : " 2/3") +
                           ", " + std::to_string(fields) + " field(s), " + std::to_string(sizeof(T) * 8) +
                           " bits";
  EXPECT_LT(relative_difference(mine, ref), eps) << what << " forward";
  for (int f = 0; f < fields; ++f)
    for (index_t m = 0; m < g1.modes(); ++m) {
      index_t ix, iy, iz;
      g1.wave(m, ix, iy, iz);
      if (!g1.kept(ix, iy, iz)) s1[static_cast<std::size_t>(f * cs1 + m)] = {0, 0};
    }
  c.from_host(masked);
  c1.from_host(s1);
  fft.backward(c.data(), p.data(), fields, spectral::Modes::kept);
  fft1.backward(c1.data(), p1.data(), fields);
  const std::vector<T> hp = p.to_host(), hp1 = p1.to_host();
  std::vector<double> back, back1;
  for (int f = 0; f < fields; ++f) {
    back.insert(back.end(), hp.begin() + f * rs, hp.begin() + f * rs + g.points());
    const std::vector<double> w(hp1.begin() + f * rs1, hp1.begin() + f * rs1 + g1.points());
    const std::vector<double> mine1 = slab_of(w, g, 1);
    back1.insert(back1.end(), mine1.begin(), mine1.end());
  }
  EXPECT_LT(relative_difference(back, back1), eps) << what << " backward";
}

TEST(SpectralMpi, PrunedFftEqualsTheFullSerialOne) {
  for (bool spherical : {false, true}) {
    check_pruned_fft<double>(2, 1, spherical);
    check_pruned_fft<double>(3, 1, spherical);
    for (int p1 : pencil_rows()) check_pruned_fft<double>(3, p1, spherical);
  }
  check_pruned_fft<double>(3, 1, false, 3);  // the compact buffers, each used again
  check_pruned_fft<float>(3, 1, false, 3);   // and one column in (single precision)
}

/// The slab's pruned transforms with every transport: the one-sided ones (peer; on the CPU backend the
/// emulated rounds) move only the kx columns of the box (field::SlabShape::columns), straight between
/// the layouts, and backward zeroes the columns they leave.
TEST(SpectralMpi, PrunedFftEqualsTheFullSerialOneWithEveryTransport) {
  for (const std::string& mode : test::transpose_transports()) {
    if (world().size() == 1 && mode == "one-sided-emulated") continue;  // one rank: no transport
    check_pruned_fft<double>(3, 1, false, 3, mode);
    check_pruned_fft<float>(3, 1, false, 3, mode);
  }
}

/// A short decaying-turbulence run: velocity and diagnostics after `steps` steps.
struct Outcome {
  std::vector<double> velocity, vorticity, q;  ///< q: the Q-criterion (3D)
  spectral::Stats stats;
  spectral::Spectrum spectrum;
};
Outcome run_case(const spectral::Setup& s, field::TransposeExchange& ex, int steps) {
  auto solver = spectral::make_solver(s, ex);
  solver->set_random_spectrum(spectral::RandomSpectrum::make(1.0, s.dims == 3 ? 3.0 : 5.0, 3.0, 5));
  for (int k = 0; k < steps; ++k) solver->step(0.02);
  Outcome o;
  solver->velocity(o.velocity);
  solver->vorticity(o.vorticity);
  if (s.dims == 3) solver->q_criterion(o.q);
  o.stats = solver->stats();
  o.spectrum = solver->spectrum();
  return o;
}

void check_agreement(int dims, const std::string& stepper, const std::string& dealiasing = "two_thirds",
                     const spectral::Forcing& forcing = {}, int p1 = 1) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  const auto exchange = parallel::make_transpose_exchange("mpi", comm, p1);
  field::TransposeExchange& ex = *exchange;
  field::LocalTransposeExchange local;
  spectral::Setup s;
  s.dims = dims;
  s.cells = dims == 3 ? Int3{20, 18, 14} : Int3{48, 30, 1};  // uneven over 4 ranks: z 4,4,3,3; y 5,5,4,4 ...
  s.length = {2 * M_PI, 2 * M_PI, 2 * M_PI};
  s.nu = 0.01;
  s.drag = 0.02;
  s.stepper = eddy::spectral::stepper_names.parse(stepper, "stepper");
  s.dealiasing = eddy::spectral::dealiasing_names.parse(dealiasing, "dealiasing");
  s.forcing = forcing;
  const Outcome d = run_case(s, ex, 10), one = run_case(s, local, 10);
  const spectral::Grid g = spectral::Grid::make(dims, s.cells, s.length, ex);
  const double du = relative_difference(d.velocity, slab_of(one.velocity, g, dims));
  const double dw = relative_difference(d.vorticity, slab_of(one.vorticity, g, dims == 3 ? 3 : 1));
  // The Q-criterion: products of derivatives computed pointwise after the transforms, so it agrees as
  // the fields it is made of do (relative, over the whole field).
  const double dq = dims == 3 ? relative_difference(d.q, slab_of(one.q, g, 1)) : 0.0;
  const double de = std::fabs(d.stats.kinetic_energy / one.stats.kinetic_energy - 1);
  const double dz = std::fabs(d.stats.enstrophy / one.stats.enstrophy - 1);
  if (comm.root())
    std::printf(
        "%dD %s %s on %d rank(s) (%d x %d) vs 1: velocity %.2e, vorticity %.2e, Q %.2e, energy %.2e, "
        "enstrophy %.2e (relative)\n",
        dims, stepper.c_str(), dealiasing.c_str(), comm.size(), p1, comm.size() / p1, du, dw, dq, de, dz);
  EXPECT_LT(du, 1e-12);
  EXPECT_LT(dw, 1e-12);
  EXPECT_LT(dq, 1e-12);
  EXPECT_LT(de, 1e-12);
  EXPECT_LT(dz, 1e-12);
  EXPECT_LT(relative_difference(d.spectrum.energy, one.spectrum.energy), 1e-12);  // summed over the ranks
  EXPECT_NEAR(d.stats.injection, one.stats.injection, 1e-12 * std::fabs(one.stats.injection));
  EXPECT_EQ(d.stats.max_velocity, comm.max(d.stats.max_velocity));  // every rank reports the global value
  EXPECT_NEAR(d.stats.max_velocity, one.stats.max_velocity, 1e-12 * one.stats.max_velocity);
}

TEST(SpectralMpi, Runs3dAgreeWithOneRankRk4) { check_agreement(3, "rk4"); }
TEST(SpectralMpi, Runs3dAgreeWithOneRankRk3) { check_agreement(3, "rk3"); }
/// Pencils, 20 x 18 x 14 on 2 x 2: kx 6 + 5, y 9 + 9, z 7 + 7, ky 9 + 9; on 4 x 1 kx 3,3,3,2, y 5,5,4,4.
TEST(SpectralMpi, Runs3dOnPencilsAgreeWithOneRankRk4) {
  for (int p1 : pencil_rows()) check_agreement(3, "rk4", "two_thirds", {}, p1);
}
TEST(SpectralMpi, Runs3dOnPencilsAgreeWithOneRankRk3PhaseShift) {
  for (int p1 : pencil_rows()) check_agreement(3, "rk3", "phase_shift", {}, p1);
}
TEST(SpectralMpi, Runs2dAgreeWithOneRankRk4) { check_agreement(2, "rk4"); }
TEST(SpectralMpi, Runs3dAgreeWithOneRankPhaseShift) { check_agreement(3, "rk4", "phase_shift"); }
TEST(SpectralMpi, Runs2dAgreeWithOneRankRk3PhaseShift) { check_agreement(2, "rk3", "phase_shift"); }
/// Forced runs: the band_limited force's band energy is one more reduction over the ranks.
TEST(SpectralMpi, Runs3dBandForcedAgreeWithOneRank) {
  spectral::Forcing f;
  f.kind = spectral::Forcing::band_limited;
  f.rate = 0.5;
  f.band[0] = 0.5, f.band[1] = 2.5;
  check_agreement(3, "rk4", "two_thirds", f);
}
TEST(SpectralMpi, Runs2dKolmogorovForcedAgreeWithOneRank) {
  spectral::Forcing f;
  f.kind = spectral::Forcing::kolmogorov;
  f.amplitude = 2.0;
  f.mode = 4;
  check_agreement(2, "rk4", "two_thirds", f);
}

/// set_taylor_green samples this rank's own block (slab: its z-planes, pencil: its y-rows of them; 2D: its
/// y-rows): the state equals set_velocity of the rank's part of the whole host-built array, within the
/// bound of tests/unit/test_spectral.cpp (64 eps max|state|; bitwise on the CPU backend).
TEST(SpectralMpi, TaylorGreenOnTheDeviceEqualsTheHostArray) {
  if (!backend::fft_available()) GTEST_SKIP();
  std::vector<std::pair<int, int>> layouts{{2, 1}, {3, 1}};  // (dims, P1)
  for (int p1 : pencil_rows()) layouts.emplace_back(3, p1);
  for (const auto& [dims, p1] : layouts) {
    const auto exchange = parallel::make_transpose_exchange("mpi", world(), p1);
    spectral::Setup s;
    s.dims = dims;
    s.cells = dims == 3 ? Int3{20, 18, 14} : Int3{48, 30, 1};  // uneven splits (check_agreement)
    s.length = {1.7, 1.7, 1.7};
    field::TaylorGreen tg;
    tg.dims = dims, tg.U = 1.3, tg.L = 1.7;
    Real3 dx{0, 0, 0};
    for (std::size_t d = 0; d < static_cast<std::size_t>(dims); ++d) dx[d] = 1.7 / double(s.cells[d]);
    auto host = spectral::make_solver(s, *exchange), device = spectral::make_solver(s, *exchange);
    host->set_velocity(slab_of(test::taylor_green_whole(tg, s.cells, dx), host->grid(), dims));
    device->set_taylor_green(tg);
    const double d = relative_difference(test::state_numbers(*device), test::state_numbers(*host));
    if (world().root())
      std::printf("Taylor-Green %dD on %d x %d: device vs host state %.3g (relative)\n", dims, p1,
                  world().size() / p1, d);
    EXPECT_LE(d, 64 * 2.220446049250313e-16) << dims << "D, P1 = " << p1;
  }
}

/// The app on this many ranks: the Taylor vortex (each rank's share of the error summed) is still exact.
TEST(SpectralMpi, AppTaylorVortex) {
  if (!backend::fft_available()) GTEST_SKIP();
  const config::RunSpec spec = config::load_file(
      std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv2d_spectral.yaml", {"output.fields.every=0"});
  const parallel::Comm comm = world();
  const std::string dir = "spectral_mpi_np" + std::to_string(comm.size());
  app::RunOptions opt;
  opt.out_dir = dir;
  opt.quiet = true;
  const app::RunResult r = app::run(spec, opt, comm);
  EXPECT_LT(r.metric("velocity_l2_error"), 1e-10);
  comm.barrier();
  if (comm.root()) std::filesystem::remove_all(dir);
}

/// A checkpoint written by P ranks restarts on one rank (each rank reads its own rows of the spectral
/// array, whatever the decomposition that wrote it) and continues as a one-rank run would.
TEST(SpectralMpi, CheckpointRestartsOnAnotherRankCount) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  const std::string dir = "spectral_mpi_ckpt_np" + std::to_string(comm.size());
  auto spec = [](const std::string& end) {
    return config::load_file(
        std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_spectral.yaml",
        {"domain.cells=[16,14,12]", "numerics.dt=0.05", "run.end_time=" + end, "output.checkpoint.every=10",
         "output.diagnostics.every=0", "output.fields.every=0", "output.fields.at_end=false",
         "validation.reference=none"});
  };
  app::RunOptions opt;
  opt.quiet = true;
  opt.out_dir = dir;
  app::run(spec("0.5"), opt, comm);
  comm.barrier();
  if (comm.root()) {
    const parallel::Comm self(MPI_COMM_SELF);
    opt.restart = "auto";
    const app::RunResult continued = app::run(spec("1.0"), opt, self);
    opt.restart = "";
    opt.out_dir = dir + "_whole";
    const app::RunResult whole = app::run(spec("1.0"), opt, self);
    double d = 0, m = 0;
    for (std::size_t k = 0; k < whole.velocity.size(); ++k)
      d = std::max(d, std::fabs(continued.velocity[k] - whole.velocity[k])),
      m = std::max(m, std::fabs(whole.velocity[k]));
    std::printf("checkpoint of %d rank(s) continued on 1: max relative difference %.2e\n", comm.size(),
                d / m);
    EXPECT_EQ(continued.steps, 20);
    EXPECT_LT(d / m, 1e-12);
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(dir + "_whole");
  }
  comm.barrier();
}

/// Largest |a - b| relative to the largest |b| (root's gathered fields).
double max_relative(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, m = 0;
  for (std::size_t k = 0; k < b.size(); ++k)
    d = std::max(d, std::fabs(a[k] - b[k])), m = std::max(m, std::fabs(b[k]));
  return a.size() == b.size() ? d / m : 1.0;
}

/// Taylor-Green 3D through the app (cases/taylor_green/tgv3d_spectral.yaml, FP64, 16 x 14 x 12, 20 RK4 steps)
/// on P slabs agrees with the one-rank run to 1e-12 (round-off of transforms done in another order), with the
/// 2/3 rule (the pruned transposes move the kept ky rows only, 9 of 14: on 4 ranks of 4, 4, 3, 3 rows
/// one rank keeps all, two one row, one all) and with the config's phase-shift sphere (13 of 14 kept:
/// every row moves).
TEST(SpectralMpi, AppTaylorGreenOnSlabsAgreesWithOneRank) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  if (comm.size() == 1) GTEST_SKIP() << "needs more than one rank";
  const std::string dir = "spectral_mpi_tgv_slab_np" + std::to_string(comm.size());
  for (const std::string dealiasing : {"two_thirds", "phase_shift"}) {
    std::vector<std::string> sets{"domain.cells=[16,14,12]",    "numerics.dt=0.05",
                                  "run.end_time=1.0",           "numerics.dealiasing=" + dealiasing,
                                  "output.diagnostics.every=0", "output.fields.every=0",
                                  "output.fields.at_end=false", "validation.reference=none"};
    const std::string file = std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_spectral.yaml";
    app::RunOptions opt;
    opt.quiet = true;
    opt.out_dir = dir;
    std::vector<std::string> slab = sets;
    slab.push_back("parallel.ranks=[1,1," + std::to_string(comm.size()) + "]");
    const app::RunResult dist = app::run(config::load_file(file, slab), opt, comm);
    const std::vector<double> dist_velocity = test::gathered_velocity(dist, comm);
    comm.barrier();
    if (comm.root()) {
      opt.out_dir = dir + "_one";
      const app::RunResult one = app::run(config::load_file(file, sets), opt, parallel::Comm(MPI_COMM_SELF));
      const double d = max_relative(dist_velocity, one.velocity);
      std::printf("TGV 3D %s on %d slabs vs 1 rank: %.2e (max relative difference)\n", dealiasing.c_str(),
                  comm.size(), d);
      EXPECT_EQ(dist.steps, 20);
      EXPECT_LT(d, 1e-12) << dealiasing;
      std::filesystem::remove_all(dir);
      std::filesystem::remove_all(dir + "_one");
    }
    comm.barrier();
  }
}

/// Taylor-Green 3D through the app on pencils (every P1 x P2 grid with P1 > 1) agrees with the one-rank
/// run, and checkpoints restart across decompositions: slab -> pencil and pencil -> slab, each continued
/// run equal to the uninterrupted one-rank run to 1e-12 (src/README.md, Spectral agreement; the same
/// coefficients, transformed in another order, differ by round-off only).
TEST(SpectralMpi, AppPencilRunsAndRestartsAcrossDecompositions) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  if (pencil_rows().empty()) GTEST_SKIP() << "needs a rank count with a pencil grid";
  const std::string dir = "spectral_mpi_pencil_np" + std::to_string(comm.size());
  auto spec = [](const std::string& end, const std::string& ranks) {
    std::vector<std::string> sets{"domain.cells=[16,14,12]",    "numerics.dt=0.05",
                                  "run.end_time=" + end,        "output.checkpoint.every=10",
                                  "output.diagnostics.every=0", "output.fields.every=0",
                                  "output.fields.at_end=true",  "validation.reference=none"};
    if (!ranks.empty()) sets.push_back("parallel.ranks=" + ranks);
    return config::load_file(std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_spectral.yaml", sets);
  };
  app::RunOptions opt;
  opt.quiet = true;
  std::vector<double> whole;
  if (comm.root()) {
    opt.out_dir = dir + "_whole";
    whole = app::run(spec("1.0", ""), opt, parallel::Comm(MPI_COMM_SELF)).velocity;
  }
  const std::string slab = "[1,1," + std::to_string(comm.size()) + "]";
  for (int p1 : pencil_rows()) {
    const std::string pencil = "[1," + std::to_string(p1) + "," + std::to_string(comm.size() / p1) + "]";
    opt.restart = "";
    opt.out_dir = dir + "_straight";
    const std::vector<double> straight =
        test::gathered_velocity(app::run(spec("1.0", pencil), opt, comm), comm);
    // slab -> pencil
    opt.out_dir = dir + "_a";
    app::run(spec("0.5", slab), opt, comm);
    opt.restart = "auto";
    const app::RunResult on_pencil_run = app::run(spec("1.0", pencil), opt, comm);
    const std::vector<double> on_pencil = test::gathered_velocity(on_pencil_run, comm);
    // pencil -> slab
    opt.restart = "";
    opt.out_dir = dir + "_b";
    app::run(spec("0.5", pencil), opt, comm);
    opt.restart = "auto";
    const app::RunResult on_slab_run = app::run(spec("1.0", slab), opt, comm);
    const std::vector<double> on_slab = test::gathered_velocity(on_slab_run, comm);
    if (comm.root()) {
      std::printf(
          "TGV 3D on %s vs 1 rank: %.2e; slab checkpoint continued on %s: %.2e; %s checkpoint "
          "continued on slabs: %.2e (max relative difference)\n",
          pencil.c_str(), max_relative(straight, whole), pencil.c_str(), max_relative(on_pencil, whole),
          pencil.c_str(), max_relative(on_slab, whole));
      EXPECT_EQ(on_pencil_run.steps, 20);
      EXPECT_EQ(on_slab_run.steps, 20);
      EXPECT_LT(max_relative(straight, whole), 1e-12);
      EXPECT_LT(max_relative(on_pencil, whole), 1e-12);
      EXPECT_LT(max_relative(on_slab, whole), 1e-12);
      // The field files (written collectively by the pencil blocks) hold the same fields.
      const std::string file = "/fields/tgv3d_spectral_00000020.h5";
      for (const char* name : {"velocity", "vorticity"}) {
        const auto p = io::FieldReader(dir + "_straight" + file).read<double>(name);
        const auto w = io::FieldReader(dir + "_whole" + file).read<double>(name);
        EXPECT_EQ(p.shape, w.shape) << name;
        EXPECT_LT(max_relative(p.data, w.data), 1e-12) << name;
      }
      for (const char* d : {"_straight", "_a", "_b"}) std::filesystem::remove_all(dir + d);
    }
    comm.barrier();
  }
  if (comm.root()) std::filesystem::remove_all(dir + "_whole");
  comm.barrier();
}

/// parallel.autotune times the process grids [1, P1, P2] the box allows and keeps the fastest: a grid of P
/// ranks that never splits x, the same on every rank (each takes the slowest rank's times), on which the
/// run agrees with one rank to 1e-12 like any grid's (round-off of the transforms in another order).
TEST(SpectralMpi, AutotunedProcessGridAgreesWithOneRank) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm = world();
  if (comm.size() == 1) GTEST_SKIP() << "needs more than one rank";
  const std::string dir = "spectral_mpi_autotune_np" + std::to_string(comm.size());
  std::vector<std::string> sets{"domain.cells=[16,14,12]",  "numerics.dt=0.05",
                                "run.end_time=0.5",         "output.diagnostics.every=0",
                                "output.fields.every=0",    "output.fields.at_end=false",
                                "validation.reference=none"};
  const std::string file = std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_spectral.yaml";
  const config::RunSpec one_spec = config::load_file(file, sets);
  sets.push_back("parallel.autotune=true");
  const config::RunSpec tuned = config::load_file(file, sets);
  const std::vector<long> grid = app::tune_process_grid(tuned, comm);
  ASSERT_EQ(grid.size(), 3u);
  EXPECT_EQ(grid[0], 1);
  EXPECT_EQ(grid[1] * grid[2], comm.size());
  EXPECT_EQ(comm.max(grid[1]), grid[1]);  // every rank chose the same grid
  EXPECT_EQ(-comm.max(-grid[1]), grid[1]);
  app::RunOptions opt;
  opt.quiet = true;
  opt.out_dir = dir;
  const app::RunResult dist = app::run(tuned, opt, comm);
  const std::vector<double> dist_velocity = test::gathered_velocity(dist, comm);
  comm.barrier();
  if (comm.root()) {
    opt.out_dir = dir + "_one";
    const app::RunResult one = app::run(one_spec, opt, parallel::Comm(MPI_COMM_SELF));
    const double d = max_relative(dist_velocity, one.velocity);
    std::printf("TGV 3D on the autotuned grid [1, %ld, %ld] vs 1 rank: %.2e (max relative difference)\n",
                grid[1], grid[2], d);
    EXPECT_EQ(dist.steps, 10);
    EXPECT_LT(d, 1e-12);
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(dir + "_one");
  }
  comm.barrier();
}

std::string input_error(const std::vector<std::string>& sets) {
  const config::RunSpec spec =
      config::load_file(std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_spectral.yaml", sets);
  try {
    app::RunOptions opt;
    opt.out_dir = "spectral_mpi_bad_input";
    opt.quiet = true;
    app::run(spec, opt, world());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SpectralMpi, BadDecompositionsNameTheKey) {
  const int P = world().size();
  if (P == 1) GTEST_SKIP() << "needs more than one rank";
  const std::string few = std::to_string(P - 1), slab = "parallel.ranks=[1,1," + std::to_string(P) + "]";
  // Slabs: more ranks than z-planes.
  EXPECT_NE(input_error({"domain.cells=[8,8," + few + "]", slab}).find("domain.cells"), std::string::npos);
  // Slabs: more ranks than ky rows of the transposed layout.
  EXPECT_NE(input_error({"domain.cells=[8," + few + ",8]", slab}).find("domain.cells"), std::string::npos);
  // 2D: more ranks than kx columns (nx/2 + 1 = P - 1).
  if (P >= 4) {
    EXPECT_NE(input_error({"domain.cells=[" + std::to_string(2 * P - 4) + ",16]"}).find("domain.cells"),
              std::string::npos);
  }
  // A process grid that splits x.
  EXPECT_NE(input_error({"domain.cells=[8,8,8]", "parallel.ranks=[" + std::to_string(P) + ",1,1]"})
                .find("parallel.ranks"),
            std::string::npos);
  // Pencils: more ranks P1 than kx columns (nx/2 + 1 = 3 < P1 = 4).
  if (P >= 4) {
    EXPECT_NE(input_error({"domain.cells=[4,8,8]", "parallel.ranks=[1," + std::to_string(P) + ",1]"})
                  .find("parallel.ranks"),
              std::string::npos);
  }
  // Pencils: more ranks P1 than y rows.
  EXPECT_NE(input_error({"domain.cells=[8," + few + ",8]", "parallel.ranks=[1," + std::to_string(P) + ",1]"})
                .find("domain.cells"),
            std::string::npos);
  // A process grid both given and to be tuned.
  EXPECT_NE(input_error({"domain.cells=[8,8,8]", slab, "parallel.autotune=true"}).find("parallel.autotune"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("spectral_mpi_bad_input"));  // bad input writes nothing
}

}  // namespace
}  // namespace eddy

int main(int argc, char** argv) {
  eddy::parallel::MpiSession mpi(&argc, &argv);
  eddy::log::set_rank(eddy::parallel::Comm().rank());
  eddy::log::set_quiet(true);
  eddy::backend::initialize(eddy::parallel::Comm().node_local_rank());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
