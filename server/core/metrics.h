// Prometheus metrics: counters and histograms, with or without labels,
// values computed at scrape time (gauges, through collectors), and their
// text exposition (format 0.0.4, what Prometheus scrapes from /metrics).
//
// - A metric child (one label set) is created on first use and lives as long
//   as its registry: keep the reference, and updates are lock-free (atomic
//   adds), cheap enough for every training step.
// - Collectors add values computed at scrape time (jobs by state, the
//   database's size, the process's memory): each is called once per
//   exposition, outside the registry's lock.
// - Names and label names follow Prometheus's rules ([a-zA-Z_:][a-zA-Z0-9_:]*,
//   checked when a family is made); label values are escaped on output.
//
// Thread-safety: every method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_METRICS_H_
#define WEBNNM_SERVER_CORE_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace webnnm::server::metrics {

// A value that only goes up (reset when the process starts).
class Counter {
 public:
  void Add(double amount = 1) { value_.fetch_add(amount); }
  double value() const { return value_.load(); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in buckets by upper bound (cumulative on output,
// with +Inf), their sum and their count.
class Histogram {
 public:
  // `bounds` ascending.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);

  const std::vector<double>& bounds() const { return bounds_; }
  // Per bucket (not cumulative), the last one +Inf's.
  std::vector<uint64_t> counts() const;
  double sum() const { return sum_.load(); }
  uint64_t count() const;  // the buckets' total

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

// Bucket bounds: `count` bounds from `start`, each `factor` times the last.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

enum class Type { kCounter, kGauge, kHistogram };

// The samples a collector adds at scrape time: one family per call of
// Family(), then its samples.
class Exposition {
 public:
  // Starts a family (HELP and TYPE lines).
  void Family(std::string_view name, std::string_view help, Type type);
  // A sample of the current family; `labels` as (name, value) pairs.
  void Sample(std::string_view name,
              const std::vector<std::pair<std::string, std::string>>& labels,
              double value);
  void Sample(std::string_view name, double value) { Sample(name, {}, value); }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A metric's children by label values.
template <typename T>
class Family {
 public:
  using Make = std::function<std::unique_ptr<T>()>;
  Family(std::vector<std::string> label_names, Make make)
      : label_names_(std::move(label_names)), make_(std::move(make)) {}

  // The child for these label values (as many as the family's label
  // names), made on first use.
  T& With(const std::vector<std::string>& values) {
    absl::MutexLock lock(&mutex_);
    std::unique_ptr<T>& child = children_[values];
    if (!child) child = make_();
    return *child;
  }

  const std::vector<std::string>& label_names() const { return label_names_; }
  // Each child with its label values (for the exposition).
  void ForEach(
      const std::function<void(const std::vector<std::string>&, const T&)>& f) {
    absl::MutexLock lock(&mutex_);
    for (const auto& [values, child] : children_) f(values, *child);
  }

 private:
  const std::vector<std::string> label_names_;
  const Make make_;
  absl::Mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<T>> children_
      ABSL_GUARDED_BY(mutex_);
};

class Registry {
 public:
  // A family of this registry (its address is stable). The name must be
  // valid and new; a program error otherwise (names are constants).
  Family<Counter>& AddCounter(std::string name, std::string help,
                              std::vector<std::string> labels = {});
  Family<Histogram>& AddHistogram(std::string name, std::string help,
                                  std::vector<double> bounds,
                                  std::vector<std::string> labels = {});
  // Called at every exposition, after the families, in the order added.
  void AddCollector(std::function<void(Exposition&)> collector);

  // The text exposition of every family and collector.
  std::string Expose();

 private:
  struct Entry {
    std::string name, help;
    Type type;
    std::unique_ptr<Family<Counter>> counters;
    std::unique_ptr<Family<Histogram>> histograms;
  };
  Entry& Add(std::string name, std::string help, Type type,
             const std::vector<std::string>& labels)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::function<void(Exposition&)>> collectors_
      ABSL_GUARDED_BY(mutex_);
};

// Whether `name` is a valid metric or label name.
bool ValidName(std::string_view name);
// A label value escaped for the exposition (\\, \" and \n).
std::string EscapeLabelValue(std::string_view value);
// A sample value as the exposition writes it (+Inf, -Inf, NaN, shortest
// round-tripping decimal otherwise).
std::string FormatValue(double value);

}  // namespace webnnm::server::metrics

#endif  // WEBNNM_SERVER_CORE_METRICS_H_
