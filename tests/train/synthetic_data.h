// Test helper: small synthetic classification data ("blobs"), the same for
// every seed on every machine (a linear congruential generator, no
// library randomness).
//
// Sample i has class i % classes; feature f is `separation` when f equals
// the class and 0 otherwise, plus noise uniform in [-0.5, 0.5). Classes are
// named "c0", "c1", ...
#ifndef WEBNNM_TESTS_TRAIN_SYNTHETIC_DATA_H_
#define WEBNNM_TESTS_TRAIN_SYNTHETIC_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/dataset.h"

namespace webnnm::train::testing {

// Uniform numbers in [-0.5, 0.5) from a seeded LCG.
class Noise {
 public:
  explicit Noise(uint32_t seed) : state_(seed) {}
  float operator()() {
    state_ = state_ * 1664525u + 1013904223u;
    return static_cast<float>(state_ >> 8) / 16777216.0f - 0.5f;
  }

 private:
  uint32_t state_;
};

// Unsplit blobs: `samples` rows of `features` values in `classes` classes.
inline Dataset Blobs(int samples, int features, int classes, uint32_t seed,
                     float separation = 1.5f) {
  Noise noise(seed);
  std::vector<float> values, labels;
  std::vector<std::string> names;
  for (int c = 0; c < classes; ++c) names.push_back("c" + std::to_string(c));
  for (int i = 0; i < samples; ++i) {
    const int c = i % classes;
    for (int f = 0; f < features; ++f) {
      values.push_back((f == c ? separation : 0.0f) + noise());
    }
    labels.push_back(static_cast<float>(c));
  }
  return Dataset::Make("blobs", features, std::move(values), 1,
                       std::move(labels), true, std::move(names));
}

}  // namespace webnnm::train::testing

#endif  // WEBNNM_TESTS_TRAIN_SYNTHETIC_DATA_H_
