#pragma once
// The message of the InputError (exit code 2) a call throws, and a check that it names what it should:
// the config tests' way of asserting a refusal.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/error.hpp"

namespace eddy::test {

/// What `f()` throws as an InputError (its exit code checked to be 2), or `accepted` when it returns.
template <class F>
std::string input_error_of(F&& f, const std::string& accepted) {
  try {
    f();
  } catch (const InputError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return accepted;
}

/// `message` holds every one of `parts`.
inline void expect_parts(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& p : parts)
    EXPECT_NE(message.find(p), std::string::npos) << "expected '" << p << "' in: " << message;
}

}  // namespace eddy::test
