#pragma once
// SIGINT and SIGTERM as requests to stop a run at the next optimizer-step boundary.

namespace olv2 {

// SIGINT and SIGTERM ask a run to stop at the next optimizer-step boundary rather than die
// mid-step or mid-write; a second one ends the process at once, as usual.
void install_stop_request_handlers();

// The signal that asked to stop, or 0.
int stop_request_signal();

}  // namespace olv2
