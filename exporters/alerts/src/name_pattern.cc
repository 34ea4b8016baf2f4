#include "name_pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "ibpulse/exporters/alerts/name_filter.h"

namespace ibpulse::exporters::alerts {
namespace detail {
namespace {

constexpr size_t kMaxLength = 1024;
constexpr size_t kMaxBound = 255;
constexpr size_t kMaxExpanded = 10'000;

// A recursive descent over the ERE grammar that only measures: the size of each part once
// its bounded repetitions are expanded. What it cannot read it leaves to std::regex to refuse.
class Measure {
 public:
  explicit Measure(std::string_view p) : p_(p) {}

  Result<size_t> whole() {
    size_t total = 0;
    while (true) {
      auto size = alternation();
      if (!size) return size;
      total = std::min(total + *size, kMaxExpanded + 1);
      if (total > kMaxExpanded)
        return Err("more than {} atoms once its repetitions are expanded", kMaxExpanded);
      if (at_ >= p_.size()) return total;
      ++at_;  // a ')' without its '(': std::regex refuses it, the rest is measured still
    }
  }

 private:
  Result<size_t> alternation() {
    size_t total = 0;
    while (true) {
      auto branch_size = branch();
      if (!branch_size) return branch_size;
      total = std::min(total + *branch_size, kMaxExpanded + 1);
      if (at_ < p_.size() && p_[at_] == '|') {
        ++at_;
        continue;
      }
      return total;
    }
  }

  Result<size_t> branch() {
    size_t total = 0;
    while (at_ < p_.size() && p_[at_] != '|' && p_[at_] != ')') {
      auto piece_size = piece();
      if (!piece_size) return piece_size;
      total = std::min(total + *piece_size, kMaxExpanded + 1);
    }
    return total;
  }

  Result<size_t> piece() {
    auto size = atom();
    if (!size) return size;
    size_t total = *size;
    while (at_ < p_.size()) {
      const char c = p_[at_];
      if (c == '*' || c == '+' || c == '?') {
        ++at_;
        total += 1;  // a loop, not copies
      } else if (c == '{') {
        auto factor = bound();
        if (!factor) return factor;
        total = std::min(total * std::max<size_t>(*factor, 1), kMaxExpanded + 1);
      } else {
        break;
      }
    }
    if (total > kMaxExpanded)
      return Err("more than {} atoms once its repetitions are expanded", kMaxExpanded);
    return total;
  }

  Result<size_t> atom() {
    const char c = p_[at_++];
    if (c == '(') {
      auto inner = alternation();
      if (!inner) return inner;
      if (at_ < p_.size() && p_[at_] == ')') ++at_;
      return *inner + 1;
    }
    if (c == '[') {
      skip_bracket();
      return size_t{1};
    }
    if (c == '\\' && at_ < p_.size()) ++at_;
    return size_t{1};
  }

  // "[...]": ']' right after '[' or '[^' is a member; "[:alpha:]"-like classes are skipped.
  void skip_bracket() {
    if (at_ < p_.size() && p_[at_] == '^') ++at_;
    if (at_ < p_.size() && p_[at_] == ']') ++at_;
    while (at_ < p_.size() && p_[at_] != ']') {
      if (p_[at_] == '[' && at_ + 1 < p_.size() &&
          (p_[at_ + 1] == ':' || p_[at_ + 1] == '=' || p_[at_ + 1] == '.')) {
        const char kind = p_[at_ + 1];
        const size_t end = p_.find(std::string{kind, ']'}, at_ + 2);
        at_ = end == std::string_view::npos ? p_.size() : end + 2;
        continue;
      }
      ++at_;
    }
    if (at_ < p_.size()) ++at_;
  }

  // "{m}", "{m,}", "{m,n}": the most copies it makes ({m,}: m and a loop).
  Result<size_t> bound() {
    const size_t start = at_++;  // '{'
    const std::string_view low = number();
    const bool comma = at_ < p_.size() && p_[at_] == ',';
    if (comma) ++at_;
    const std::string_view high = comma ? number() : std::string_view();
    const bool closed = at_ < p_.size() && p_[at_] == '}';
    if (closed) ++at_;
    // Even in a bound std::regex will refuse: it reads the number before it sees what is wrong.
    for (const std::string_view digits : {low, high}) {
      if (digits.size() > 3 || (!digits.empty() && to_size(digits) > kMaxBound))
        return Err("the repetition '{}' counts above {}", p_.substr(start, at_ - start), kMaxBound);
    }
    if (!closed) return size_t{1};  // std::regex says what is wrong
    if (comma && high.empty()) return to_size(low) + 1;
    return std::max(to_size(low), to_size(high));
  }

  std::string_view number() {
    const size_t from = at_;
    while (at_ < p_.size() && std::isdigit(static_cast<unsigned char>(p_[at_])) != 0)
      ++at_;
    return p_.substr(from, at_ - from);
  }

  static size_t to_size(std::string_view digits) {
    size_t n = 0;
    for (const char c : digits)
      n = n * 10 + static_cast<size_t>(c - '0');
    return n;
  }

  std::string_view p_;
  size_t at_ = 0;
};

}  // namespace

Result<std::shared_ptr<const std::regex>> compile_name_pattern(const std::string& pattern) {
  if (pattern.size() > kMaxLength)
    return Err("bad regular expression: longer than {} characters", kMaxLength);
  if (auto size = Measure(pattern).whole(); !size)
    return Err("bad regular expression '{}': {}", pattern, size.error());
  try {
    return std::make_shared<const std::regex>(pattern, std::regex::extended);
  } catch (const std::regex_error& e) {
    return Err("bad regular expression '{}': {}", pattern, e.what());
  }
}

}  // namespace detail

struct NameFilter::Compiled {
  std::shared_ptr<const std::regex> regex;
};

NameFilter::NameFilter(std::unique_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

NameFilter::~NameFilter() = default;

Result<std::shared_ptr<const NameFilter>> NameFilter::compile(const std::string& pattern) {
  auto regex = detail::compile_name_pattern(pattern);
  if (!regex) return Error{regex.error()};
  auto compiled = std::make_unique<const Compiled>(Compiled{std::move(*regex)});
  return std::shared_ptr<const NameFilter>(new NameFilter(std::move(compiled)));
}

bool NameFilter::search(std::string_view text) const {
  return std::regex_search(text.begin(), text.end(), *compiled_->regex);
}

}  // namespace ibpulse::exporters::alerts
