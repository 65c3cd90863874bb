#include "sim/signals.hpp"

#include <pthread.h>

#include <csignal>
#include <initializer_list>

namespace eddy::sim {
namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}
}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigset_t stops;
  sigemptyset(&stops);
  for (int s : {SIGTERM, SIGINT, SIGUSR1}) sigaction(s, &sa, nullptr), sigaddset(&stops, s);
  // A launcher may hand them over blocked; a stop signal that stays blocked would be a no-op (one already
  // pending arrives now).
  pthread_sigmask(SIG_UNBLOCK, &stops, nullptr);
}

int stop_signal() { return g_signal; }
void clear_stop_signal() { g_signal = 0; }

}  // namespace eddy::sim
