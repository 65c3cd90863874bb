// eddy: lattice Boltzmann and pseudo-spectral CFD on GPU clusters.
#include "app/cli.hpp"

int main(int argc, char** argv) { return eddy::app::main_entry(argc, argv); }
