#include "olv2/util/stop_request.h"

#include <atomic>
#include <csignal>

#include "olv2/util/platform.h"

namespace olv2 {

namespace {

std::atomic<int> requested{0};

extern "C" void on_stop_signal(int signal) {
  if (requested.exchange(signal) != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

}  // namespace

void install_stop_request_handlers() { platform::on_stop_signals(on_stop_signal); }

int stop_request_signal() { return requested.load(); }

}  // namespace olv2
