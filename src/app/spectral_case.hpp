#pragma once
/// What a spectral run derives from the config (app/spectral_run.cpp), shared by `eddy run` and
/// `eddy optimize`.
#include "core/types.hpp"
#include "io/config/run_spec.hpp"
#include "parallel/comm.hpp"
#include "parallel/decomposition.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::app {

struct SpectralCase {
  spectral::Setup setup;
  parallel::Decomposition slabs;  ///< physical-space slabs: whole x-y planes (2D: x rows) per rank
  Real3 dx{0.0, 0.0, 0.0};        ///< grid spacing [m] (0 along unused directions)
  double velocity = 1.0;          ///< initial amplitude U [m/s]
  double max_cfl = 0.0;
};

/// The solver setup, slabs and limits of a spectral config; InputError naming the key when they are bad.
SpectralCase make_spectral_case(const config::RunSpec& spec, const parallel::Comm& comm);

}  // namespace eddy::app
