// main() of the test executables: MPI up for the whole run (writers and runs are collective), quiet logs.
#include <gtest/gtest.h>

#include "backend/backend.hpp"
#include "core/log.hpp"
#include "parallel/comm.hpp"

int main(int argc, char** argv) {
  eddy::parallel::MpiSession mpi(&argc, &argv);
  eddy::log::set_rank(eddy::parallel::Comm().rank());
  eddy::backend::initialize(eddy::parallel::Comm().node_local_rank());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
