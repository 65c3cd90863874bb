// One rank's block of more than 2^31 bytes through eddy's data paths (ctest large_block_2gib, label
// `scale`, 2 ranks): rank 0 fills 2^31 + 4096 bytes (uint8, a grid of 1 x 2048 x (2^20 + 2) cells),
// sends them to rank 1 through a parallel::Transport (messages in pieces of at most 2^30 bytes), and
// rank 1 writes them as its box of a FieldFile (rank 0's box is empty): collective (parallel HDF5:
// writes in pieces of at most 2^30 bytes, rows of the one z-plane) or, with a serial HDF5, gather
// (the 2 GiB go back to rank 0 over MPI in pieces); and per_rank (EDDY_LARGE_BLOCK_ALL=1: all three,
// about 30 s more). Each file is read
// back through FieldReader: its checksum recomputed (in slabs) against rank 0's checksum of the data
// it sent, and a sample of rows compared value by value, then removed.
//
// Peak memory: 2 x (2^31 + 4096) bytes, about 4.3 GB over both ranks (rank 0's array, then rank 1's
// copy; rank 0 frees its array once sent, and the gather path's receive buffer on rank 0 replaces
// it). The test needs 5 GB of MemAvailable and 2.5 GB of free disk in the working directory, and
// skips (exit 77) otherwise. Run: mpirun -n 2 ./eddy_large_block_test
#include <mpi.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/field_reader.hpp"
#include "parallel/comm.hpp"
#include "parallel/transport.hpp"

namespace fs = std::filesystem;
using eddy::index_t;
using eddy::io::Block;
using eddy::io::WriteMode;

namespace {

constexpr index_t nx = (index_t(1) << 20) + 2, ny = 2048;  // nx * ny = 2^31 + 4096
constexpr std::size_t bytes = std::size_t(nx) * std::size_t(ny);
constexpr int kSkip = 77;

/// The value of cell `i` (flat, C order): every byte value, no period that a shifted copy would match.
std::uint8_t pattern(std::uint64_t i) { return static_cast<std::uint8_t>((i * 0x9E3779B97F4A7C15ULL) >> 56); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// MemAvailable of /proc/meminfo in bytes; 0 when unknown.
double mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    in.ignore(256, '\n');
  }
  return 0;
}

double disk_free(const std::string& dir) {
  struct statvfs v {};
  if (statvfs(dir.c_str(), &v) != 0) return 0;
  return double(v.f_bavail) * double(v.f_frsize);
}

Block grid_box(bool holds_all) {
  Block b = Block::whole(3, {nx, ny, 1});
  if (!holds_all) b.extent = {0, 0, 0};
  return b;
}

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  eddy::parallel::MpiSession mpi(&argc, &argv);
  const eddy::parallel::Comm comm(MPI_COMM_WORLD);
  eddy::backend::initialize(comm.node_local_rank());
  if (comm.size() != 2) {
    if (comm.root()) std::fprintf(stderr, "large_block_2gib: run on exactly 2 ranks\n");
    return 1;
  }
  const auto t_start = std::chrono::steady_clock::now();

  // Enough memory and disk, or skip.
  std::string skip;
  if (comm.root()) {
    const double need_mem = 5e9, need_disk = 2.5e9, have_mem = mem_available(), have_disk = disk_free(".");
    if (have_mem < need_mem)
      skip =
          "needs 5 GB of MemAvailable for 2 x 2 GiB + 4 KiB, has " + std::to_string(have_mem / 1e9) + " GB";
    else if (have_disk < need_disk)
      skip = "needs 2.5 GB of free disk in the working directory, has " + std::to_string(have_disk / 1e9) +
             " GB";
  }
  skip = comm.broadcast(skip);
  if (!skip.empty()) {
    if (comm.root()) std::printf("large_block_2gib: skipped: %s\n", skip.c_str());
    return kSkip;
  }
  const std::string dir = comm.broadcast(comm.root() ? "large_block_" + std::to_string(::getpid()) : "");
  if (comm.root()) fs::create_directories(dir);
  comm.barrier();

  // Rank 0's array, its checksum, and the send to rank 1 through a transport.
  const Block whole = grid_box(true);
  std::uint64_t sent_sum = 0;
  std::vector<std::uint8_t> data;
  auto t0 = std::chrono::steady_clock::now();
  if (comm.rank() == 0) {
    data.resize(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = pattern(i);
    sent_sum = eddy::io::block_checksum(data.data(), whole, 0);
  } else {
    data.resize(bytes);
  }
  MPI_Bcast(&sent_sum, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (comm.root()) std::printf("filled %zu bytes and summed them in %.1f s\n", bytes, seconds_since(t0));
  t0 = std::chrono::steady_clock::now();
  {
    // "mpi-gpu" hands the buffers to MPI as they are (no staging copy on the CPU backend).
    const auto transport = eddy::parallel::make_transport(eddy::backend::is_gpu() ? "mpi" : "mpi-gpu", comm);
    std::vector<eddy::parallel::Message> sends, recvs;
    if (comm.rank() == 0) sends.push_back({1, data.data(), bytes});
    if (comm.rank() == 1) recvs.push_back({0, data.data(), bytes});
    transport->start(sends, recvs);
    transport->finish();
  }
  if (comm.rank() == 0) std::vector<std::uint8_t>().swap(data);  // rank 1 holds the only copy now
  if (comm.rank() == 1) {
    bool same = true;
    for (std::size_t i :
         {std::size_t(0), std::size_t(1) << 30, (std::size_t(1) << 31) - 1, std::size_t(1) << 31, bytes - 1})
      same = same && data[i] == pattern(i);
    for (std::size_t i = 0; i < bytes; i += 999983) same = same && data[i] == pattern(i);
    check(same, "the transport delivered other bytes than were sent");
  }
  comm.barrier();
  if (comm.root()) std::printf("sent to rank 1 through a transport in %.1f s\n", seconds_since(t0));

  // Rank 1's box is the whole grid, rank 0's is empty: each write path with a >2 GiB box.
  // Two paths keep the test near a minute: the MPI-IO one where the build has it, else gather; and
  // per_rank. EDDY_LARGE_BLOCK_ALL=1 runs all three.
  const char* all = std::getenv("EDDY_LARGE_BLOCK_ALL");
  const bool every = all && std::string(all) == "1";
  std::vector<WriteMode> modes{WriteMode::per_rank};
  if (!eddy::io::hdf5_is_parallel() || every) modes.insert(modes.begin(), WriteMode::gather);
  if (eddy::io::hdf5_is_parallel()) modes.insert(modes.begin(), WriteMode::collective);
  const Block mine = grid_box(comm.rank() == 1);
  for (WriteMode mode : modes) {
    const std::string path = dir + "/big_" + eddy::io::to_string(mode) + ".h5";
    t0 = std::chrono::steady_clock::now();
    std::string error;
    try {
      eddy::io::FieldFile f = eddy::io::FieldFile::create(path, mine, comm, mode);
      f.write_scalar("mask", comm.rank() == 1 ? data.data() : nullptr, eddy::io::Checksum::on);
      f.commit();
      if (comm.root())
        std::printf("%s: wrote %.2f GB in %.1f s (%.2f GB/s)\n", eddy::io::to_string(mode),
                    f.stats().bytes / 1e9, f.stats().seconds, f.stats().bytes / 1e9 / f.stats().seconds);
    } catch (const std::exception& e) {
      error = e.what();
    }
    check(error.empty(), std::string(eddy::io::to_string(mode)) + ": writing failed: " + error);
    if (!error.empty()) continue;
    if (comm.root()) {
      // Rank 0 (which no longer holds the data) reads it back: checksums, then sample rows.
      t0 = std::chrono::steady_clock::now();
      try {
        const eddy::io::FieldReader r(path);
        check(r.shape("mask") == whole.file_shape(0), "shape");
        check(r.attribute_u64("checksum", "mask") == sent_sum,
              std::string(eddy::io::to_string(mode)) + ": stored checksum differs from the sender's");
        check(r.verify_checksum("mask"),
              std::string(eddy::io::to_string(mode)) + ": checksum does not verify");
        for (index_t row : {index_t(0), index_t(1), index_t(1023), index_t(1024), ny / 2, ny - 2, ny - 1}) {
          Block b = whole;
          b.offset = {0, row, 0};
          b.extent = {nx, 1, 1};
          const std::vector<std::uint8_t> got = r.read_block<std::uint8_t>("mask", b, 0);
          bool same = got.size() == std::size_t(nx);
          for (index_t i = 0; same && i < nx; ++i)
            same = got[std::size_t(i)] == pattern(std::uint64_t(row) * std::uint64_t(nx) + std::uint64_t(i));
          check(same, std::string(eddy::io::to_string(mode)) + ": row " + std::to_string(row) + " differs");
        }
      } catch (const std::exception& e) {
        check(false, std::string(eddy::io::to_string(mode)) + ": reading failed: " + e.what());
      }
      std::printf("%s: read back and verified in %.1f s\n", eddy::io::to_string(mode), seconds_since(t0));
      eddy::io::remove_field_file(path);
    }
    comm.barrier();
  }
  if (comm.root()) {
    fs::remove_all(dir);
    std::printf("large_block_2gib: %s (%d failure(s)) in %.1f s; peak about %.1f GB over both ranks\n",
                failures ? "FAILED" : "passed", failures, seconds_since(t_start), 2.0 * double(bytes) / 1e9);
  }
  int worst = failures;
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst ? 1 : 0;
}
