#include "spectral/slab_fft.hpp"

#include <algorithm>
#include <vector>

#include "backend/profile.hpp"
#include "core/error.hpp"

namespace eddy::spectral {

using backend::FftKind;
using backend::FftLayout;
using backend::FftPlan;

namespace {
/// The breakdown's fft phase for one transform (the transposes inside mark their own), then back to the
/// caller's phase.
struct Phases {
  backend::PhaseTimer::Phase caller = backend::phase_timer().to(backend::PhaseTimer::fft);
  ~Phases() { backend::phase_timer().to(caller); }
};
}  // namespace

template <class T>
SlabFft<T>::SlabFft(const Grid& g, field::TransposeExchange& exchange, bool overlap)
    : g_(g), ex_(exchange), overlap_(overlap) {
  real_stride_ = padded_stride(g.points());
  complex_stride_ = padded_stride(g.modes());
  pencil_ = ex_.p1() > 1;
  if (pencil_) {
    if (g.dims != 3) throw Error("the pencil decomposition is for 3D boxes");
    plan_pencils();
  } else {
    plan_slabs();
    if (ex_.ranks() > 1) plan_kept_transposes();
  }
  share_work_area();
}

// The b-rows of the spectral array [a][b][c] are ky (3D: a full axis, both signs stored) or kx (2D: the
// half axis of the r2c transform); the pencil's c-columns are kx.
template <class T>
bool SlabFft<T>::b_half() const {
  return g_.dims == 2;
}
template <class T>
index_t SlabFft<T>::b_extent() const {
  return g_.kept_extent(g_.dims == 3 ? 1 : 0);
}

template <class T>
void SlabFft<T>::plan_pencils() {
  const Grid& g = g_;
  FftLayout along_x;  // the local x-rows: (nx) x z_l y_l
  along_x.n = {g.n[0]};
  along_x.batch = g.na_local * g.ny_local;
  r2c_.emplace(FftKind::r2c, along_x);
  c2r_.emplace(FftKind::c2r, along_x);
  FftLayout along_y;  // one z-plane [y][kx_l]: 1D along y over the kx_l columns
  along_y.n = {g.n[1]};
  along_y.batch = along_y.stride = g.nc_local;
  along_y.in_dist = along_y.out_dist = 1;
  along_y_fwd_.emplace(FftKind::c2c_forward, along_y);
  along_y_bwd_.emplace(FftKind::c2c_backward, along_y);
  kept_y_ = kept_columns(g.n[1], g.nc, true, g.kept_extent(0), g.c0, g.nc_local, 1, prune_y_);
  FftLayout along_z;  // 1D along z over the local (ky, kx) columns of [z][ky_l][kx_l]
  along_z.n = {g.na};
  along_z.batch = along_z.stride = g.nb_local * g.nc_local;
  along_z.in_dist = along_z.out_dist = 1;
  along_a_fwd_.emplace(FftKind::c2c_forward, along_z);
  along_a_bwd_.emplace(FftKind::c2c_backward, along_z);
  kept_a_ = kept_columns(g.na, g.nb, b_half(), b_extent(), g.b0, g.nb_local, g.nc_local, prune_a_);
  tmp_stride_ = padded_stride(g.na_local * g.ny_local * g.nc);
  y_plane_ = padded_stride(g.n[1] * g.nc_local);  // aligned planes: each is one FFT call's array
  ytmp_stride_ = padded_stride(g.na_local * y_plane_);
}

template <class T>
void SlabFft<T>::plan_slabs() {
  const Grid& g = g_;
  FftLayout whole;  // r2c shape of one field: 3D (nz, ny, nx), 2D (ny, nx)
  if (g.dims == 3)
    whole.n = {g.n[2], g.n[1], g.n[0]};
  else
    whole.n = {g.n[1], g.n[0]};
  FftLayout planes;  // the local a-planes: 3D (ny, nx) x na_local, 2D (nx) x na_local
  planes.n.assign(whole.n.begin() + 1, whole.n.end());
  planes.batch = g.na_local;
  kept_a_ = kept_columns(g.na, g.nb, b_half(), b_extent(), g.b0, g.nb_local, g.nc, prune_a_);
  if (ex_.ranks() == 1) {
    whole_r2c_.emplace(FftKind::r2c, whole);
    whole_c2r_.emplace(FftKind::c2r, whole);
  }
  if (ex_.ranks() > 1 || prune_a_) {  // one rank: the pruned transform is planes + kept columns along a
    r2c_.emplace(FftKind::r2c, planes);
    c2r_.emplace(FftKind::c2r, planes);
  }
  if (ex_.ranks() > 1) {
    FftLayout along_a;  // 1D along a over the local (b, c) columns of [a][b_local][c]
    along_a.n = {g.na};
    along_a.batch = g.nb_local * g.nc;
    along_a.stride = g.nb_local * g.nc;
    along_a.in_dist = along_a.out_dist = 1;
    along_a_fwd_.emplace(FftKind::c2c_forward, along_a);
    along_a_bwd_.emplace(FftKind::c2c_backward, along_a);
    tmp_stride_ = padded_stride(g.na_local * g.nb * g.nc);
  }
}

// The transposes of Modes::kept move the kept b-rows only where the whole axis keeps at most 80 % of its
// rows: a decision of the global grid alone, so every rank makes the same (the sizes of each message must
// agree on both sides), whichever ranks prune their c2c along a.
template <class T>
void SlabFft<T>::plan_kept_transposes() {
  const Grid& g = g_;
  std::vector<field::RowRange> rows = kept_rows(g.nb, b_half(), b_extent());
  index_t kept = 0;
  for (const field::RowRange& r : rows) kept += r.count;
  if (!worth_pruning(kept, g.nb)) return;
  index_t next = 0;
  for (const field::RowRange& r : rows) {
    if (r.lo > next) zeroed_b_.push_back({next, r.lo - next});
    next = r.lo + r.count;
  }
  if (next < g.nb) zeroed_b_.push_back({next, g.nb - next});
  moved_b_ = std::move(rows);
  // 3D: of each moved ky row, the kx columns of the box (the c axis is the half axis kx >= 0)
  const index_t columns = std::min(g.kept_extent(0) + 1, g.nc);
  if (g.dims == 3 && worth_pruning(columns, g.nc)) moved_columns_ = columns;
  const index_t moved = slab_shape(Modes::kept).moved_count(g.b0, g.nb_local);
  // else the b-slab layout is the compact one; and where the exchange copies straight between the
  // layouts (one-sided), into spec's rows as cheaply as into a compact buffer, and the c2c along a in
  // place in spec is the faster (1024^3 on an H200: backward 0.97 ms a field in place, 1.43 out of
  // place into the compact buffer: cases/benchmarks/results/2026-11-30i-h200)
  if (moved < g.nb_local && !ex_.copies_between_layouts()) plan_compact(moved);
}

// Every plan works in one shared work area, the size of the largest plan's.
template <class T>
void SlabFft<T>::share_work_area() {
  std::vector<FftPlan<T>*> plans;
  for (auto* p :
       {&whole_r2c_, &whole_c2r_, &r2c_, &c2r_, &along_a_fwd_, &along_a_bwd_, &along_y_fwd_, &along_y_bwd_})
    if (*p) plans.push_back(&**p);
  for (auto* kept : {&kept_a_, &kept_y_})
    for (Columns& c : *kept) plans.push_back(&c.fwd), plans.push_back(&c.bwd);
  for (CompactColumns& c : compact_a_) plans.push_back(&c.fwd), plans.push_back(&c.bwd);
  std::size_t work = 0;
  for (FftPlan<T>* p : plans) work = std::max(work, p->work_bytes());
  if (work > 0) {
    work_.resize(work);
    for (FftPlan<T>* p : plans) p->set_work_area(work_.data());
  }
}

// The kept rows of an axis of the spectral array: a full axis (wave numbers 0 .. n/2, then the negative
// ones) keeps [0, K] and [n - K, n), the half axis of the r2c transform (kx >= 0) [0, K], K the extent of
// the mask along it.
template <class T>
std::vector<field::RowRange> SlabFft<T>::kept_rows(index_t axis, bool half_axis, index_t extent) {
  std::vector<field::RowRange> ranges{{0, std::min(extent + 1, axis)}};
  if (!half_axis && extent > 0) {
    const index_t lo = std::max(axis - extent, extent + 1);
    if (lo < axis) ranges.push_back({lo, axis - lo});
  }
  return ranges;
}

// Pruning pays where it skips enough: on an H200 (cases/benchmarks/results/2026-11-30d-h200) one rank's
// 512^3 transforms took 0.91x the full 3D plan's time with the 2/3 rule (2/3 of the ky rows kept) and
// 1.014x with the spherical mask (94 % kept), so ranks keeping more than 80 % of their rows run whole.
template <class T>
bool SlabFft<T>::worth_pruning(index_t kept, index_t rows) {
  return kept * 5 <= rows * 4;
}

// Rounded to the rank's rows, each range of kept rows is one batch of columns (rows x width); its first
// column is rounded down to 16 bytes (FFT arrays must be aligned so: fft.hpp), which adds at most one
// column of another row, harmless both ways (forward: an extra result outside the box; backward: a zero
// column transformed to zeros).
template <class T>
auto SlabFft<T>::kept_columns(index_t n, index_t axis, bool half_axis, index_t extent, index_t r0,
                              index_t rows, index_t width, bool& pruned) -> std::vector<Columns> {
  std::vector<Columns> out;
  index_t kept = 0;
  const index_t align = std::max<index_t>(1, index_t(16 / sizeof(C)));
  for (const field::RowRange& range : kept_rows(axis, half_axis, extent)) {
    const index_t lo = range.lo, hi = range.lo + range.count;
    const index_t a = std::max(lo, r0) - r0, b = std::min(hi, r0 + rows) - r0;
    if (a >= b) continue;
    kept += b - a;
    const index_t first = a * width / align * align, last = b * width;
    FftLayout l;
    l.n = {n};
    l.batch = last - first;
    l.stride = rows * width;
    l.in_dist = l.out_dist = 1;
    out.push_back(Columns{first, FftPlan<T>(FftKind::c2c_forward, l), FftPlan<T>(FftKind::c2c_backward, l)});
  }
  pruned = worth_pruning(kept, rows);
  if (!pruned) out.clear();
  return out;
}

// The compact buffer [a][moved rows of this rank][c] (`rows` of them, each range's one after the other)
// against spec [a][nb_local][c]: per range a batch of columns, strides rows * nc and nb_local * nc. Both
// arrays' first columns must be 16-byte aligned (fft.hpp). As in kept_columns, spec's first column is
// rounded down (single precision: to an even column) and the compact one by as much, which needs the two
// congruent: the buffer starts `compact_lead_` columns into its allocation so that the first range's
// are; a second range's (two ranges on one rank) may not be, and then this rank keeps the b-slab path
// (no compact plans). The column before a range, so taken in, holds in spec a mode outside the box (a row
// that is not moved): forward writes there what the compact buffer holds before the range (the previous
// range's last column, or the lead, which nothing else writes: zero), unspecified values as the
// contract allows; backward reads a zero there (its input contract) and writes the transform, zero,
// before the range in the buffer: into the lead, or into the previous range's last column, which the
// previous range's plan, run after it (compact_along_a), then writes right.
template <class T>
void SlabFft<T>::plan_compact(index_t rows) {
  const field::SlabShape s = slab_shape(Modes::kept);
  field::RowRange local[2];
  const int n = s.moved_rows(g_.b0, g_.nb_local, local);
  const index_t align = std::max<index_t>(1, index_t(16 / sizeof(C))), nc = g_.nc;
  if (n == 0) return;  // nothing kept here: nothing moves to this rank's b side
  const index_t lead = (local[0].lo - g_.b0) * nc % align;
  std::vector<CompactColumns> plans;
  index_t before = 0;
  for (int i = 0; i < n; ++i) {
    const index_t out = (local[i].lo - g_.b0) * nc, in = before * nc, shift = out % align;
    if ((lead + in) % align != shift) return;  // not congruent: the b-slab path
    const auto columns = [&](index_t from_stride, index_t to_stride) {
      FftLayout l;
      l.n = {g_.na};
      l.batch = local[i].count * nc + shift;
      l.stride = from_stride;
      l.out_stride = to_stride;
      l.in_dist = l.out_dist = 1;
      l.out_of_place = true;
      return l;
    };
    const index_t buffer_stride = rows * nc, spec_stride = g_.nb_local * nc;
    plans.push_back(CompactColumns{in - shift, out - shift,
                                   FftPlan<T>(FftKind::c2c_forward, columns(buffer_stride, spec_stride)),
                                   FftPlan<T>(FftKind::c2c_backward, columns(spec_stride, buffer_stride))});
    before += local[i].count;
  }
  compact_a_ = std::move(plans);
  compact_lead_ = lead;
  compact_stride_ = padded_stride(lead + g_.na * rows * nc);
}

template <class T>
void SlabFft<T>::compact_along_a(bool fwd, C* buffer, C* spec) {
  if (fwd) {
    for (const CompactColumns& c : compact_a_)
      c.fwd.execute_out_of_place(buffer + c.in_first, spec + c.out_first);
    return;
  }
  for (auto c = compact_a_.rbegin(); c != compact_a_.rend(); ++c)  // the last range first (plan_compact)
    c->bwd.execute_out_of_place(spec + c->out_first, buffer + c->in_first);
}

template <class T>
void SlabFft<T>::reserve_tmp(int fields) {
  const auto need = [fields](index_t stride) { return static_cast<std::size_t>(stride * fields); };
  if (tmp_.size() < need(tmp_stride_)) tmp_.resize(need(tmp_stride_));
  if (ytmp_.size() < need(ytmp_stride_)) ytmp_.resize(need(ytmp_stride_));
}

// The two pencil transposes as slab transposes (field/slab.hpp): within a row, the z_l planes [y][kx] are
// transposed alike (outer arrays; a = y, b = kx, c = 1) into padded planes; within a column, [z][y][kx_l]
// with a = z, b = y, c = kx_l, its a-planes the padded y-pencil planes.
template <class T>
field::SlabShape SlabFft<T>::row_shape() const {
  field::SlabShape s{g_.n[1], g_.nc, 1, sizeof(C)};
  s.outer = g_.na_local;
  s.b_outer_stride = y_plane_;
  return s;
}

template <class T>
field::SlabShape SlabFft<T>::column_shape() const {
  field::SlabShape s{g_.na, g_.nb, g_.nc_local, sizeof(C)};
  s.a_pitch = y_plane_;
  return s;
}

template <class T>
field::SlabShape SlabFft<T>::slab_shape(Modes modes) const {
  field::SlabShape s{g_.na, g_.nb, g_.nc, sizeof(C)};
  if (modes == Modes::kept) {
    s.row_ranges = static_cast<int>(moved_b_.size());
    std::copy(moved_b_.begin(), moved_b_.end(), s.rows);
    s.compact = uses_compact(modes);
    s.columns = moved_columns_;
  }
  return s;
}

// The a-slab buffer [a_local][b][c] holds, before a c2r transform, whatever its last use left (the c2r
// overwrites its input): the rows that the pruned transpose skips are zeroed, one strided block per range
// (3D, 2/3 rule: ky in (K, ny - K), one block of every local plane; 2D: kx > K), and in 3D the columns
// kx > K of the moved rows, which the transpose need not write (field::SlabShape::columns).
template <class T>
void SlabFft<T>::zero_skipped_rows(C* a_slab) const {
  const std::size_t e = sizeof(C), row = static_cast<std::size_t>(g_.nc) * e;
  const std::size_t plane = static_cast<std::size_t>(g_.nb) * row,
                    planes = static_cast<std::size_t>(g_.na_local);
  for (const field::RowRange& r : zeroed_b_)
    backend::fill_zero_2d(a_slab + r.lo * g_.nc, plane, static_cast<std::size_t>(r.count) * row, planes);
  if (moved_columns_ == 0) return;
  for (const field::RowRange& r : moved_b_)
    backend::fill_zero_3d(
        a_slab + r.lo * g_.nc + moved_columns_, {row, plane},
        {static_cast<std::size_t>(g_.nc - moved_columns_) * e, static_cast<std::size_t>(r.count), planes});
}

template <class T>
void SlabFft<T>::along_a(bool fwd, C* data, Modes modes) {
  if (modes == Modes::kept && prune_a_) {
    for (const Columns& c : kept_a_) (fwd ? c.fwd : c.bwd).execute(data + c.first);
    return;
  }
  (fwd ? along_a_fwd_ : along_a_bwd_)->execute(data);
}

template <class T>
void SlabFft<T>::along_y(bool fwd, int f, Modes modes) {
  for (index_t z = 0; z < g_.na_local; ++z) {
    C* plane = ytmp_.data() + f * ytmp_stride_ + z * y_plane_;
    if (modes == Modes::kept && prune_y_)
      for (const Columns& c : kept_y_) (fwd ? c.fwd : c.bwd).execute(plane + c.first);
    else
      (fwd ? along_y_fwd_ : along_y_bwd_)->execute(plane);
  }
}

// Overlap: stage j of field f runs while transpose j - 1 of field f + 1... in order, per step t:
//   compute_0(t); finish T_0(t-1); start T_0(t); compute_1(t-1); finish T_1(t-2); start T_1(t-1); ...
// so each transpose has one field in flight while the next stage's transforms run (with NCCL on its own
// stream they overlap on the device). The same operations on the same data as the batched order: exact.
// The compact buffers (slab, Modes::kept): field f's is compact(f), one of two. Forward, T(f + 1) is
// received into the other buffer while f's transform along a reads compact(f); T(f + 2), which reuses
// it, starts after that transform was queued, and the exchange orders its transport after queued work
// (field/slab.hpp). Backward, field f + 1's transform writes the other buffer while T(f) sends from
// compact(f); field f + 2's, which reuses it, is queued after finish T(f). The batched order (overlap
// off, or one field) runs the compact transposes one field at a time, each finished before the next
// stage: the same operations again.
template <class T>
void SlabFft<T>::pipeline(int fields, int transposes, const std::function<void(int, int)>& compute,
                          const std::function<void(int, int)>& start,
                          const std::function<void(int)>& finish) {
  for (int t = 0; t < fields + transposes; ++t)
    for (int j = 0; j <= transposes; ++j) {
      const int f = t - j;
      if (j > 0) {
        if (f >= 0 && f < fields) finish(j - 1);
        if (f + 1 >= 0 && f + 1 < fields) start(j - 1, f + 1);
      }
      if (f >= 0 && f < fields) compute(j, f);
    }
}

template <class T>
void SlabFft<T>::forward(const T* phys, C* spec, int fields, Modes modes) {
  const Phases phases;
  if (ex_.ranks() == 1 && (modes == Modes::all || !prune_a_)) {
    for (int f = 0; f < fields; ++f) whole_r2c_->execute(phys + f * real_stride_, spec + f * complex_stride_);
    return;
  }
  if (ex_.ranks() == 1) {  // pruned: the planes, then along a over the kept rows
    for (int f = 0; f < fields; ++f) {
      r2c_->execute(phys + f * real_stride_, spec + f * complex_stride_);
      along_a(true, spec + f * complex_stride_, modes);
    }
    return;
  }
  distributed(
      true, [&](int f) { r2c_->execute(phys + f * real_stride_, tmp_.data() + f * tmp_stride_); }, spec,
      fields, modes);
}

template <class T>
void SlabFft<T>::backward(C* spec, T* phys, int fields, Modes modes) {
  const Phases phases;
  if (ex_.ranks() == 1 && (modes == Modes::all || !prune_a_)) {
    for (int f = 0; f < fields; ++f) whole_c2r_->execute(spec + f * complex_stride_, phys + f * real_stride_);
    return;
  }
  if (ex_.ranks() == 1) {
    for (int f = 0; f < fields; ++f) {
      along_a(false, spec + f * complex_stride_, modes);
      c2r_->execute(spec + f * complex_stride_, phys + f * real_stride_);
    }
    return;
  }
  // Pruned slab transposes leave the skipped rows of tmp_ as they were: zeroed just before each field's
  // c2r, in the stage after that field's transpose has finished (pipeline()).
  distributed(
      false,
      [&](int f) {
        C* a_slab = tmp_.data() + f * tmp_stride_;
        if (modes == Modes::kept) zero_skipped_rows(a_slab);
        c2r_->execute(a_slab, phys + f * real_stride_);
      },
      spec, fields, modes);
}

// The P-rank transform as a chain, in forward order: stage 0 (the real transforms, `real`), transpose 0,
// stage 1, ..., the last stage (c2c along a, in place in spec). Slab: r2c, tmp -> spec, along a. Pencil:
// r2c, tmp -> ytmp within the row, along y, ytmp -> spec within the column, along z. Backward runs the
// chain from its end: the inverse transforms, each transpose b -> a.
template <class T>
void SlabFft<T>::distributed(bool fwd, const std::function<void(int)>& real, C* spec, int fields,
                             Modes modes) {
  reserve_tmp(fields);
  const bool compact_b = uses_compact(modes);
  if (compact_b) {  // two buffers, alternating by field, where two fields' transposes can be in flight
    const auto need = static_cast<std::size_t>(compact_stride_ * std::min(fields, 2));
    if (compact_.size() < need) compact_.resize(need);
  }
  struct Transpose {
    field::TransposeExchange* ex;
    field::SlabShape shape;
    C* a;  // the a-slab side, fields a_stride apart
    index_t a_stride;
    C* b;  // the b side, fields b_stride apart; nullptr: the compact buffers (compact())
    index_t b_stride;
  };
  C* tmp = tmp_.data();
  C* ytmp = ytmp_.data();
  std::vector<std::function<void(int)>> stages{real};
  std::vector<Transpose> transposes;
  if (pencil_) {
    transposes.push_back({ex_.row(), row_shape(), tmp, tmp_stride_, ytmp, ytmp_stride_});
    stages.emplace_back([&](int f) { along_y(fwd, f, modes); });
    transposes.push_back({&ex_, column_shape(), ytmp, ytmp_stride_, spec, complex_stride_});
  } else {
    transposes.push_back(
        {&ex_, slab_shape(modes), tmp, tmp_stride_, compact_b ? nullptr : spec, complex_stride_});
  }
  if (compact_b)
    stages.emplace_back([&](int f) { compact_along_a(fwd, compact(f), spec + f * complex_stride_); });
  else
    stages.emplace_back([&](int f) { along_a(fwd, spec + f * complex_stride_, modes); });
  if (!fwd) {
    std::reverse(stages.begin(), stages.end());
    std::reverse(transposes.begin(), transposes.end());
  }
  const int n = static_cast<int>(transposes.size());
  // One field's transpose: started (and, `wait`, finished).
  const auto start = [&](int j, int f, bool wait) {
    const Transpose& t = transposes[j];
    C* a = t.a + f * t.a_stride;
    C* b = t.b ? t.b + f * t.b_stride : compact(f);
    t.ex->start(fwd, t.shape, fwd ? a : b, 0, fwd ? b : a, 0, 1);
    if (wait) t.ex->finish();
  };
  if (compact_b && (!overlap_ || fields == 1)) {  // the compact buffers take one field at a time
    pipeline(
        fields, n, [&](int j, int f) { stages[j](f); }, [&](int j, int f) { start(j, f, true); }, [](int) {});
    return;
  }
  if (!overlap_ || fields == 1) {
    for (int j = 0; j <= n; ++j) {
      for (int f = 0; f < fields; ++f) stages[j](f);
      if (j == n) break;
      const Transpose& t = transposes[j];
      if (fwd)
        t.ex->a_to_b(t.shape, t.a, t.a_stride, t.b, t.b_stride, fields);
      else
        t.ex->b_to_a(t.shape, t.b, t.b_stride, t.a, t.a_stride, fields);
    }
    return;
  }
  pipeline(
      fields, n, [&](int j, int f) { stages[j](f); }, [&](int j, int f) { start(j, f, false); },
      [&](int j) { transposes[j].ex->finish(); });
}

template class SlabFft<float>;
template class SlabFft<double>;

}  // namespace eddy::spectral
