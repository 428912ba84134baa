#include "client/yaml_output.h"

#include <cctype>
#include <cstdio>
#include <iostream>
#include <set>
#include <string_view>

namespace webnnm::client {
namespace {

using Json = nlohmann::ordered_json;

// Whether `s` reads back as this very string when written plain (in block
// context): it starts with a letter, '_', '/' or a non-ASCII character, is
// no word a YAML 1.1 or 1.2 loader takes for a boolean or null, holds no
// control character, no ": " or " #", and does not end with ':' or a space.
// Characters a YAML loader refuses or reads as line breaks where they
// stand: DEL, the C1 controls (U+0080-U+009F, NEL among them), U+2028,
// U+2029 and a byte-order mark.
bool HasYamlHostile(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const auto next = [&](size_t k) {
      return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
    };
    if (b == 0x7f) return true;
    if (b == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return true;
    if (b == 0xe2 && next(1) == 0x80 && (next(2) == 0xa8 || next(2) == 0xa9)) {
      return true;
    }
    if (b == 0xef && next(1) == 0xbb && next(2) == 0xbf) return true;
  }
  return false;
}

// `quoted` (JSON's double-quoted text) with HasYamlHostile's characters as
// \uXXXX escapes.
std::string QuoteHostile(const std::string& quoted) {
  if (!HasYamlHostile(quoted)) return quoted;
  std::string out;
  for (size_t i = 0; i < quoted.size(); ++i) {
    const auto b = static_cast<unsigned char>(quoted[i]);
    const size_t rest = quoted.size() - i;
    const auto at = [&](size_t k) {
      return static_cast<unsigned char>(quoted[i + k]);
    };
    char escape[8];
    if (b == 0x7f) {
      out += "\\u007f";
    } else if (b == 0xc2 && rest > 1 && at(1) >= 0x80 && at(1) <= 0x9f) {
      std::snprintf(escape, sizeof escape, "\\u%04x", at(1));
      out += escape;
      ++i;
    } else if (b == 0xe2 && rest > 2 && at(1) == 0x80 &&
               (at(2) == 0xa8 || at(2) == 0xa9)) {
      out += at(2) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else if (b == 0xef && rest > 2 && at(1) == 0xbb && at(2) == 0xbf) {
      out += "\\ufeff";
      i += 2;
    } else {
      out += quoted[i];
    }
  }
  return out;
}

bool PlainSafe(std::string_view s) {
  if (s.empty() || HasYamlHostile(s)) return false;
  static const std::set<std::string_view> kReserved = {
      "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
      "yes",  "Yes",  "YES",  "no",   "No",   "NO",   "on",    "On",    "ON",
      "off",  "Off",  "OFF",  "y",    "Y",    "n",    "N",     "~"};
  if (kReserved.contains(s)) return false;
  const unsigned char first = static_cast<unsigned char>(s.front());
  if (!(std::isalpha(first) || first == '_' || first == '/' || first >= 0x80)) {
    return false;  // numbers, '-', '&', '*', '!', '[', quotes...
  }
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  if (s.find(": ") != std::string_view::npos ||
      s.find(" #") != std::string_view::npos) {
    return false;
  }
  return s.back() != ':' && s.back() != ' ';
}

// A literal block keeps these as they are: no carriage returns or tabs,
// no leading space on the first line, at most one final newline.
bool LiteralSafe(std::string_view s) {
  if (s.find('\n') == std::string_view::npos || HasYamlHostile(s)) {
    return false;
  }
  if (s.find_first_of("\r\t") != std::string_view::npos) return false;
  if (s.front() == ' ' || s.front() == '\n') return false;
  for (unsigned char c : s) {
    if (c < 0x20 && c != '\n') return false;
  }
  return !s.ends_with("\n\n");
}

std::string Scalar(const Json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    // Double-quoted as JSON writes it (YAML's double quotes read JSON's
    // escapes), with the characters a YAML loader refuses escaped too.
    return PlainSafe(s) ? s : QuoteHostile(v.dump());
  }
  std::string text = v.dump();  // numbers, booleans, null
  if (v.is_number_float() && text.find_first_of("eE") != std::string::npos &&
      text.find('.') == std::string::npos) {
    // YAML 1.1 loaders (PyYAML) read 1e-05 as a string: 1.0e-05.
    text.insert(text.find_first_of("eE"), ".0");
  }
  return text;
}

bool Inline(const Json& v) {
  return !(v.is_object() || v.is_array()) || v.empty() ||
         (v.is_string() && LiteralSafe(v.get_ref<const std::string&>()));
}

void Write(const Json& v, int indent, std::string& out);

// `text` as a literal block under a key or a dash at `indent`.
void Literal(const std::string& text, int indent, std::string& out) {
  out += text.ends_with('\n') ? "|\n" : "|-\n";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) out += std::string(indent + 2, ' ');
    out.append(text, at, end - at);
    out += '\n';
    at = end + 1;
  }
}

// After "key:" or "-": the value on the same line, or below it.
void Value(const Json& v, int indent, std::string& out) {
  if (v.is_string() && LiteralSafe(v.get_ref<const std::string&>())) {
    out += ' ';
    Literal(v.get_ref<const std::string&>(), indent, out);
  } else if (v.is_object() && !v.empty()) {
    out += '\n';
    Write(v, indent + 2, out);
  } else if (v.is_array() && !v.empty()) {
    out += '\n';
    Write(v, indent + 2, out);
  } else {
    out += ' ';
    out += v.is_object() ? "{}" : v.is_array() ? "[]" : Scalar(v);
    out += '\n';
  }
}

void Write(const Json& v, int indent, std::string& out) {
  const std::string pad(indent, ' ');
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      out += pad + Scalar(Json(key)) + ":";
      Value(value, indent, out);
    }
  } else if (v.is_array()) {
    for (const Json& item : v) {
      if ((item.is_object() || item.is_array()) && !item.empty()) {
        // The item's first line follows the dash.
        std::string inner;
        Write(item, indent + 2, inner);
        out += pad + "- " + inner.substr(indent + 2);
      } else {
        out += pad + "-";
        Value(item, indent, out);
      }
    }
  } else {
    out += pad + Scalar(v) + "\n";
  }
}

}  // namespace

std::string ToYaml(const Json& value) {
  std::string out;
  if (!(value.is_object() || value.is_array()) || value.empty()) {
    out = value.is_object()  ? "{}\n"
          : value.is_array() ? "[]\n"
                             : Scalar(value) + "\n";
    return out;
  }
  Write(value, 0, out);
  return out;
}

class YamlCout::Buffer : public std::streambuf {
 public:
  explicit Buffer(std::streambuf* sink) : sink_(sink) {}

  void Finish() {
    if (!line_.empty()) Emit();
    sink_->pubsync();
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return 0;
    line_ += traits_type::to_char_type(c);
    if (c == '\n') Emit();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(s[i]);
    return n;
  }
  int sync() override { return sink_->pubsync(); }

 private:
  void Emit() {
    std::string text = line_;
    line_.clear();
    const bool whole = text.ends_with('\n');
    std::string_view body(text.data(), text.size() - (whole ? 1 : 0));
    if (!body.empty() && (body.front() == '{' || body.front() == '[')) {
      Json doc = Json::parse(body, nullptr, false);
      if (!doc.is_discarded()) {
        std::string yaml = (documents_++ > 0 ? "---\n" : "") + ToYaml(doc);
        sink_->sputn(yaml.data(), static_cast<std::streamsize>(yaml.size()));
        sink_->pubsync();
        return;
      }
    }
    sink_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    sink_->pubsync();
  }

  std::streambuf* sink_;
  std::string line_;
  int documents_ = 0;
};

YamlCout::YamlCout()
    : buffer_(new Buffer(std::cout.rdbuf())), original_(std::cout.rdbuf()) {
  std::cout.rdbuf(buffer_);
}

YamlCout::~YamlCout() {
  std::cout.flush();
  buffer_->Finish();
  std::cout.rdbuf(original_);
  delete buffer_;
}

}  // namespace webnnm::client
