// Status and Expected<T>: how every layer reports a user-facing failure (a bad
// model, an unsupported op, a malformed IR file) without exceptions. Messages
// are complete sentences for the user; callers add context as they unwind.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cuvil {

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string &message() const {
    assert(!ok());
    return *message_;
  }
  // Prefixes the message, e.g. with the node that failed.
  Status withContext(const std::string &context) const {
    return ok() ? Status() : Status(context + ": " + *message_);
  }

private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Status status) : storage_(std::move(status)) {
    assert(!std::get<Status>(storage_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }
  Status status() const { return ok() ? Status() : std::get<Status>(storage_); }
  T &operator*() { return std::get<T>(storage_); }
  const T &operator*() const { return std::get<T>(storage_); }
  T *operator->() { return &std::get<T>(storage_); }
  const T *operator->() const { return &std::get<T>(storage_); }
  T take() { return std::move(std::get<T>(storage_)); }

private:
  std::variant<T, Status> storage_;
};

} // namespace cuvil

// Returns early from the enclosing function when `expr` yields an error Status.
#define CUVIL_TRY(expr)                                                                            \
  do {                                                                                             \
    ::cuvil::Status cuvilTryStatus_ = (expr);                                                      \
    if (!cuvilTryStatus_.ok())                                                                     \
      return cuvilTryStatus_;                                                                      \
  } while (0)
