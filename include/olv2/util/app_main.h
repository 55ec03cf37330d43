#pragma once
// The guard around every app's `main`: escaping errors become one stderr line and an exit status.
#include <functional>

namespace olv2 {

// Runs an app's body and turns every escaping exception into one line on stderr,
// "<app>: error: <message>", and the matching exit status (olv2::Error carries its own;
// anything else is an internal error, status 1). No exception reaches std::terminate.
int guarded_main(const char* app_name, const std::function<int()>& body);

}  // namespace olv2
