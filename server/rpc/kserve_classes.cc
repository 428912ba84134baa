#include "server/rpc/kserve_classes.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::server {
namespace {

// Each row's probability per class (a one-unit output: 1 - p and p).
std::vector<std::vector<double>> Rows(const InferTensor& t, size_t classes) {
  const size_t units =
      t.shape.empty() ? 1 : static_cast<size_t>(t.shape.back());
  std::vector<std::vector<double>> rows;
  for (size_t at = 0; units > 0 && at + units <= t.values.size(); at += units) {
    if (units == 1 && classes == 2) {
      rows.push_back({1 - t.values[at], t.values[at]});
    } else {
      rows.emplace_back(t.values.begin() + static_cast<ptrdiff_t>(at),
                        t.values.begin() + static_cast<ptrdiff_t>(at + units));
    }
  }
  return rows;
}

std::vector<int64_t> RowShape(const InferTensor& t) {
  return {t.shape.begin(), t.shape.empty() ? t.shape.end() : t.shape.end() - 1};
}

KServeOutput ClassNames(const InferTensor& t,
                        const std::vector<std::string>& classes) {
  KServeOutput o{ClassOutputName(t.name), RowShape(t), {}, {{}}};
  for (const std::vector<double>& row : Rows(t, classes.size())) {
    size_t best = static_cast<size_t>(std::max_element(row.begin(), row.end()) -
                                      row.begin());
    o.strings->push_back(classes[best]);
  }
  return o;
}

// Triton's classification: the k best of each row as "score:index:name".
KServeOutput Classification(const InferTensor& t, int64_t k,
                            const std::vector<std::string>& classes) {
  k = std::min<int64_t>(k, static_cast<int64_t>(classes.size()));
  KServeOutput o{t.name, RowShape(t), {}, {{}}};
  o.shape.push_back(k);
  for (const std::vector<double>& row : Rows(t, classes.size())) {
    std::vector<size_t> order(row.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&row](size_t a, size_t b) { return row[a] > row[b]; });
    for (int64_t i = 0; i < k; ++i) {
      const size_t c = order[static_cast<size_t>(i)];
      o.strings->push_back(
          StrCat(static_cast<float>(row[c]), ":", c, ":", classes[c]));
    }
  }
  return o;
}

// The `classification` parameter of a requested output: 0 when absent.
absl::StatusOr<int64_t> ClassificationOf(
    const inference::ModelInferRequest::InferRequestedOutputTensor& r) {
  auto p = r.parameters().find("classification");
  if (p == r.parameters().end()) return 0;
  const inference::InferParameter& v = p->second;
  int64_t k = v.has_int64_param()    ? v.int64_param()
              : v.has_uint64_param() ? static_cast<int64_t>(std::min<uint64_t>(
                                           v.uint64_param(), INT64_MAX))
                                     : 0;
  if (k <= 0) {
    return absl::InvalidArgumentError(
        StrCat("output '", r.name(),
               "': classification takes a positive integer (the classes a "
               "row to answer)"));
  }
  return k;
}

}  // namespace

std::string ClassOutputName(std::string_view output) {
  return StrCat(output, "_class");
}

bool HasClassNames(const std::vector<int64_t>& shape,
                   const std::vector<std::string>& classes) {
  if (classes.empty() || shape.empty()) return false;
  const int64_t units = shape.back();
  return units == static_cast<int64_t>(classes.size()) ||
         (units == 1 && classes.size() == 2);
}

absl::StatusOr<std::vector<KServeOutput>> KServeOutputs(
    const inference::ModelInferRequest& request,
    const std::vector<InferTensor>& outputs,
    const std::vector<std::string>& classes) {
  std::vector<KServeOutput> answers;
  const bool all = request.outputs().empty();
  for (const auto& r : request.outputs()) {
    bool known = false;
    for (const InferTensor& o : outputs) {
      known |= o.name == r.name() || (r.name() == ClassOutputName(o.name) &&
                                      HasClassNames(o.shape, classes));
    }
    if (!known) {
      return absl::InvalidArgumentError(
          StrCat("the model has no output '", r.name(), "'"));
    }
  }
  for (const InferTensor& o : outputs) {
    const bool named = HasClassNames(o.shape, classes);
    for (const auto& r : request.outputs()) {
      if (r.name() == o.name) {
        ASSIGN_OR_RETURN(int64_t k, ClassificationOf(r));
        if (k > 0 && !named) {
          return absl::InvalidArgumentError(
              StrCat("output '", o.name,
                     "' is not a classifier's: no classification"));
        }
        answers.push_back(k > 0 ? Classification(o, k, classes)
                                : KServeOutput{o.name, o.shape, o.values, {}});
      }
    }
    if (all) answers.push_back({o.name, o.shape, o.values, {}});
    bool class_asked = false;
    for (const auto& r : request.outputs()) {
      class_asked |= r.name() == ClassOutputName(o.name);
    }
    if (named && (all || class_asked))
      answers.push_back(ClassNames(o, classes));
  }
  return answers;
}

std::string RawContents(const KServeOutput& output) {
  std::string bytes;
  if (output.strings) {
    for (const std::string& s : *output.strings) {
      const uint32_t n = static_cast<uint32_t>(s.size());
      for (int i = 0; i < 4; ++i) {
        bytes.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
      }
      bytes += s;
    }
    return bytes;
  }
  bytes.resize(output.values.size() * sizeof(float));
  for (size_t i = 0; i < output.values.size(); ++i) {
    const float f = static_cast<float>(output.values[i]);
    std::memcpy(bytes.data() + i * sizeof(float), &f, sizeof(float));
  }
  return bytes;
}

}  // namespace webnnm::server
