#pragma once
/// The `eddy` command line (src/README.md, Command line): run, validate, bench, info, optimize.
namespace eddy::app {

/// Parse the arguments, run the verb and return the process exit code (0, 1, 2 or 3).
int main_entry(int argc, char** argv);

}  // namespace eddy::app
