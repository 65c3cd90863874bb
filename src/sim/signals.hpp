#pragma once
/// Stop requests from the batch system: SIGTERM (scancel, time limit), SIGINT (Ctrl-C) and SIGUSR1
/// (Slurm's --signal=USR1@<seconds>) only set a flag; the time loop polls it at step boundaries and
/// the ranks agree before stopping, so every rank writes the same checkpoint and exits together.
namespace eddy::sim {

/// Install the handlers and unblock the three signals in the calling thread (idempotent). `eddy run`
/// calls it first thing in main, so a signal during the set-up stops the run before its first step.
void install_stop_signals();
/// The number of the first stop signal received, 0 if none.
int stop_signal();
/// Forget a received signal (tests).
void clear_stop_signal();

}  // namespace eddy::sim
