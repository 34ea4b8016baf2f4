#pragma once
// A pattern on node names: a POSIX extended regular expression, measured before it is compiled
// (the regex library expands a bounded repetition into copies of what it repeats: a pattern is
// refused past 1,024 characters, a bound above 255 or 10,000 atoms once expanded; name_pattern.h
// says why). Alert rules' `name` scope, health.maintenance, the health views' `?filter=` and
// `ibpulse top --filter` all compile theirs here. Opaque, so <regex> stays out of the headers
// that hold one.
//
// Thread safety: immutable once compiled; search() from any thread.

#include <memory>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::alerts {

class NameFilter {
 public:
  // Errors say what is wrong: "bad regular expression '...': ...".
  static Result<std::shared_ptr<const NameFilter>> compile(const std::string& pattern);
  ~NameFilter();
  NameFilter(const NameFilter&) = delete;
  NameFilter& operator=(const NameFilter&) = delete;

  bool search(std::string_view text) const;  // a match anywhere in `text`

 private:
  struct Compiled;
  explicit NameFilter(std::unique_ptr<const Compiled> compiled);

  std::unique_ptr<const Compiled> compiled_;
};

}  // namespace ibpulse::exporters::alerts
