#pragma once
// The message of the input error a piece of code throws, for tests of what bad input is told.
#include <gtest/gtest.h>

#include <string>

#include "olv2/util/error.h"

namespace olv2::test {

// The message of the input error `body` throws; a test failure when it throws none, or an error
// of another exit status.
template <typename Body>
std::string input_error_of(Body&& body) {
  try {
    body();
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

}  // namespace olv2::test
