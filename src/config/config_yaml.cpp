#include "olv2/config/config_yaml.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace olv2 {

namespace {

// Python's repr: the shortest digits that read back as `value`, fixed notation for exponents
// in [-4, 16), scientific otherwise. YAML 1.1 needs a `.` in the mantissa and a signed exponent
// to resolve a float; to_chars always writes the exponent's sign.
std::string float_text(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::array<char, 64> buffer{};
  const auto scientific =
      std::to_chars(buffer.begin(), buffer.end(), value, std::chars_format::scientific);
  const std::string text(buffer.begin(), scientific.ptr);
  const size_t e = text.find('e');
  const int exponent = std::stoi(text.substr(e + 1));
  if (exponent >= -4 && exponent < 16) {
    const auto fixed = std::to_chars(buffer.begin(), buffer.end(), value, std::chars_format::fixed);
    std::string digits(buffer.begin(), fixed.ptr);
    return digits.find('.') == std::string::npos ? digits + ".0" : digits;
  }
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  return mantissa + text.substr(e);
}

// Words YAML 1.1 resolves to booleans or null.
bool is_yaml11_keyword(const std::string& text) {
  static const std::array<const char*, 25> kKeywords = {
      "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
      "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
      "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL"};
  for (const char* keyword : kKeywords) {
    if (text == keyword) return true;
  }
  return false;
}

// Plain only when no YAML reader can take it for a number, boolean, null, timestamp or
// syntax: a letter, `_` or `/` first, then letters, digits and `_./+-`.
bool can_stay_plain(const std::string& text) {
  if (text.empty() || is_yaml11_keyword(text)) return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(text[0]) && text[0] != '_' && text[0] != '/') return false;
  for (const char c : text) {
    const bool digit = c >= '0' && c <= '9';
    if (!letter(c) && !digit && c != '_' && c != '.' && c != '/' && c != '+' && c != '-')
      return false;
  }
  return true;
}

std::string string_text(const std::string& text) {
  if (can_stay_plain(text)) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (c == '\n') {
      quoted += "\\n";
    } else if (c == '\t') {
      quoted += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      std::array<char, 8> escape{};
      std::snprintf(escape.data(), escape.size(), "\\x%02X", byte);
      quoted += escape.data();
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

std::string scalar_text(const ConfigNode& node) {
  if (node.quoted()) return string_text(node.text());
  if (node.is_bool()) return node.as_bool() ? "true" : "false";
  if (node.is_int()) return std::to_string(node.as_int());
  if (node.is_number()) return float_text(node.as_written_double());
  return string_text(node.text());
}

bool is_block(const ConfigNode& node);

// Written inline: scalars, null, empty mappings and lists of such.
std::string flow_text(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      return "null";
    case ConfigNode::Kind::kScalar:
      return scalar_text(node);
    case ConfigNode::Kind::kMap:
      return "{}";
    case ConfigNode::Kind::kSequence:
      break;
  }
  std::string text = "[";
  for (size_t i = 0; i < node.size(); ++i) text += (i > 0 ? ", " : "") + flow_text(node[i]);
  return text + "]";
}

// Non-empty mappings, and lists holding one, are written as indented blocks.
bool is_block(const ConfigNode& node) {
  if (node.is_map()) return node.size() > 0;
  if (!node.is_sequence()) return false;
  for (const ConfigNode& element : node.elements()) {
    if (is_block(element)) return true;
  }
  return false;
}

void emit_block(const ConfigNode& node, int indent, std::ostringstream& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  if (node.is_map()) {
    for (const auto& [key, value] : node.entries()) {
      out << pad << string_text(key) << ":";
      if (is_block(value)) {
        out << "\n";
        emit_block(value, indent + 2, out);
      } else {
        out << " " << flow_text(value) << "\n";
      }
    }
    return;
  }
  for (const ConfigNode& element : node.elements()) {
    if (element.is_map() && is_block(element)) {
      // The mapping's first key goes on the dash's line: "- type: X".
      std::ostringstream inner;
      emit_block(element, indent + 2, inner);
      out << pad << "- " << inner.str().substr(static_cast<size_t>(indent) + 2);
    } else if (is_block(element)) {
      out << pad << "-\n";
      emit_block(element, indent + 2, out);
    } else {
      out << pad << "- " << flow_text(element) << "\n";
    }
  }
}

}  // namespace

std::string to_yaml(const ConfigNode& node) {
  if (!is_block(node)) return flow_text(node) + "\n";
  std::ostringstream out;
  emit_block(node, 0, out);
  return out.str();
}

}  // namespace olv2
