#include "olv2/engine/distributed/slurm_hostlist.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

constexpr size_t kMaxHosts = size_t{1} << 20;
constexpr size_t kMaxDigits = 18;  // every such number fits in uint64_t

bool is_number(const std::string& text) {
  return !text.empty() && text.size() <= kMaxDigits &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(c) != 0; });
}

std::string zero_padded(uint64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

void check_host_count(size_t count) {
  if (count > kMaxHosts) {
    throw input_error("more than " + std::to_string(kMaxHosts) + " hosts");
  }
}

// The numbers between one pair of brackets ("01-03,07": 01 02 03 07), each as wide as the first
// number of its range.
std::vector<std::string> bracket_numbers(const std::string& contents) {
  std::vector<std::string> numbers;
  size_t start = 0;
  while (true) {
    const size_t comma = contents.find(',', start);
    const std::string item = contents.substr(start, comma - start);
    const size_t dash = item.find('-');
    const std::string low = item.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : item.substr(dash + 1);
    if (!is_number(low) || !is_number(high)) {
      throw input_error("[" + contents + "]: expected numbers and ranges such as 01-03,07 " +
                        "between the brackets");
    }
    const uint64_t first = std::stoull(low), last = std::stoull(high);
    if (last < first) throw input_error("the range " + item + " runs backwards");
    check_host_count(numbers.size() + (last - first));
    for (uint64_t n = first; n <= last; ++n) numbers.push_back(zero_padded(n, low.size()));
    if (comma == std::string::npos) return numbers;
    start = comma + 1;
  }
}

// The hosts one name of the list stands for ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2).
std::vector<std::string> expand_name(const std::string& name) {
  if (name.empty()) throw input_error("an empty host name");
  std::vector<std::string> hosts = {""};
  size_t pos = 0;
  while (pos < name.size()) {
    const size_t open = name.find('[', pos);
    const std::string literal = name.substr(pos, open - pos);
    if (literal.find(']') != std::string::npos) throw input_error("a ] without its [");
    for (std::string& host : hosts) host += literal;
    if (open == std::string::npos) break;
    const size_t close = name.find(']', open);
    if (close == std::string::npos) throw input_error("a [ without its ]");
    const std::string contents = name.substr(open + 1, close - open - 1);
    if (contents.find('[') != std::string::npos) throw input_error("a [ inside brackets");
    const std::vector<std::string> numbers = bracket_numbers(contents);
    check_host_count(hosts.size() * numbers.size());
    std::vector<std::string> product;
    product.reserve(hosts.size() * numbers.size());
    for (const std::string& host : hosts) {
      for (const std::string& number : numbers) product.push_back(host + number);
    }
    hosts = std::move(product);
    pos = close + 1;
  }
  return hosts;
}

// The list's names: split at the commas outside brackets.
std::vector<std::string> names_of(const std::string& hostlist) {
  std::vector<std::string> names(1);
  int depth = 0;
  for (const char c : hostlist) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      throw input_error("white space in a host name");
    }
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth == 0) {
      names.emplace_back();
    } else {
      names.back() += c;
    }
  }
  return names;
}

}  // namespace

std::vector<std::string> expand_slurm_hostlist(const std::string& hostlist) {
  std::vector<std::string> hosts;
  for (const std::string& name : names_of(hostlist)) {
    const std::vector<std::string> expanded = expand_name(name);
    check_host_count(hosts.size() + expanded.size());
    hosts.insert(hosts.end(), expanded.begin(), expanded.end());
  }
  return hosts;
}

}  // namespace olv2
