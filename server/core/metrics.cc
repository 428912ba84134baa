#include "server/core/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace webnnm::server::metrics {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double value) {
  const size_t bucket =
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  counts_[bucket].fetch_add(1);
  sum_.fetch_add(value);
}

uint64_t Histogram::count() const {
  uint64_t total = 0;
  for (uint64_t c : counts()) total += c;
  return total;
}

std::vector<uint64_t> Histogram::counts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  for (size_t i = 0; i < out.size(); ++i) out[i] = counts_[i].load();
  return out;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> bounds;
  double bound = start;
  for (int i = 0; i < count; ++i, bound *= factor) bounds.push_back(bound);
  return bounds;
}

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

namespace {

// HELP text escapes only \ and newline.
std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

using Labels = std::vector<std::pair<std::string, std::string>>;

Labels Zip(const std::vector<std::string>& names,
           const std::vector<std::string>& values) {
  Labels labels;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    labels.emplace_back(names[i], values[i]);
  }
  return labels;
}

}  // namespace

void Exposition::Family(std::string_view name, std::string_view help,
                        Type type) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  text_ += EscapeHelp(help);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += TypeName(type);
  text_ += '\n';
}

void Exposition::Sample(std::string_view name, const Labels& labels,
                        double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) text_ += ',';
      text_ += labels[i].first;
      text_ += "=\"";
      text_ += EscapeLabelValue(labels[i].second);
      text_ += '"';
    }
    text_ += '}';
  }
  text_ += ' ';
  text_ += FormatValue(value);
  text_ += '\n';
}

Registry::Entry& Registry::Add(std::string name, std::string help, Type type,
                               const std::vector<std::string>& labels) {
  bool valid = ValidName(name);
  for (const std::string& label : labels) {
    valid = valid && ValidName(label) && label != "le";
  }
  for (const auto& entry : entries_) valid = valid && entry->name != name;
  if (!valid) {
    // A programming error (names are constants), found by the first test.
    std::cerr << "metrics: invalid or repeated metric " << name << "\n";
    std::abort();
  }
  auto entry = std::make_unique<Entry>();
  entry->name = std::move(name);
  entry->help = std::move(help);
  entry->type = type;
  entries_.push_back(std::move(entry));
  return *entries_.back();
}

Family<Counter>& Registry::AddCounter(std::string name, std::string help,
                                      std::vector<std::string> labels) {
  absl::MutexLock lock(&mutex_);
  Entry& e = Add(std::move(name), std::move(help), Type::kCounter, labels);
  e.counters = std::make_unique<Family<Counter>>(
      std::move(labels), [] { return std::make_unique<Counter>(); });
  return *e.counters;
}

Family<Histogram>& Registry::AddHistogram(std::string name, std::string help,
                                          std::vector<double> bounds,
                                          std::vector<std::string> labels) {
  std::sort(bounds.begin(), bounds.end());
  absl::MutexLock lock(&mutex_);
  Entry& e = Add(std::move(name), std::move(help), Type::kHistogram, labels);
  e.histograms = std::make_unique<Family<Histogram>>(
      std::move(labels),
      [bounds] { return std::make_unique<Histogram>(bounds); });
  return *e.histograms;
}

void Registry::AddCollector(std::function<void(Exposition&)> collector) {
  absl::MutexLock lock(&mutex_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::Expose() {
  Exposition out;
  std::vector<std::function<void(Exposition&)>> collectors;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& e : entries_) {
      out.Family(e->name, e->help, e->type);
      if (e->counters) {
        e->counters->ForEach([&](const auto& values, const Counter& c) {
          out.Sample(e->name, Zip(e->counters->label_names(), values),
                     c.value());
        });
      } else {
        e->histograms->ForEach([&](const auto& values, const Histogram& h) {
          const Labels labels = Zip(e->histograms->label_names(), values);
          const std::vector<uint64_t> counts = h.counts();
          uint64_t cumulative = 0;
          for (size_t i = 0; i < counts.size(); ++i) {
            cumulative += counts[i];
            Labels with_le = labels;
            with_le.emplace_back("le", i < h.bounds().size()
                                           ? FormatValue(h.bounds()[i])
                                           : "+Inf");
            out.Sample(e->name + "_bucket", with_le,
                       static_cast<double>(cumulative));
          }
          out.Sample(e->name + "_sum", labels, h.sum());
          out.Sample(e->name + "_count", labels,
                     static_cast<double>(cumulative));
        });
      }
    }
    collectors = collectors_;
  }
  for (const auto& collect : collectors) collect(out);
  return out.text();
}

}  // namespace webnnm::server::metrics
