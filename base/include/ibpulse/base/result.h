#pragma once
// A small result type: a value or an error message. g++ 12 has no std::expected.
//
// Expected failures (a missing tool, a bad argument, a port that does not answer) travel as
// Result values up to the layer that reports them; invariants are checked (check.h).
//
// Thread safety: a Result is a value type; distinct objects may be used from distinct threads.

#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>

#include "ibpulse/base/check.h"

namespace ibpulse {

struct Error {
  std::string message;
};

// Builds an Error from a fmt format string: `return Err("bad port {}", port);`.
template <typename... Args>
Error Err(fmt::format_string<Args...> format, Args&&... args) {
  return Error{fmt::format(format, std::forward<Args>(args)...)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : data_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    IBPULSE_CHECK(ok(), "the value of a failed result: {}", std::get<Error>(data_).message);
    return std::get<T>(data_);
  }
  const T& value() const& {
    IBPULSE_CHECK(ok(), "the value of a failed result: {}", std::get<Error>(data_).message);
    return std::get<T>(data_);
  }
  T&& value() && {
    IBPULSE_CHECK(ok(), "the value of a failed result: {}", std::get<Error>(data_).message);
    return std::get<T>(std::move(data_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const std::string& error() const {
    IBPULSE_CHECK(!ok(), "the error of a result that succeeded");
    return std::get<Error>(data_).message;
  }

 private:
  std::variant<T, Error> data_;
};

// Result of an operation that yields nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace ibpulse
