#include "proto/convert/metrics.h"

namespace webnnm::wire {

v1::OutputMetrics ToProto(const std::string& name,
                          const train::OutputMetrics& m) {
  v1::OutputMetrics out;
  out.set_name(name);
  out.set_classification(m.classification);
  if (m.classification) {
    const train::ClassificationMetrics& c = m.classes;
    out.set_accuracy(c.accuracy);
    for (const std::string& k : c.classes) out.add_classes(k);
    for (double v : c.precision) out.add_precision(v);
    for (double v : c.recall) out.add_recall(v);
    for (double v : c.f1) out.add_f1(v);
    for (const std::vector<int64_t>& row : c.confusion) {
      v1::ConfusionRow* r = out.add_confusion_matrix();
      for (int64_t n : row) r->add_counts(n);
    }
  } else {
    for (double v : m.regression.mae) out.add_mae(v);
    for (double v : m.regression.rmse) out.add_rmse(v);
    for (double v : m.regression.r2) out.add_r2(v);
  }
  return out;
}

std::pair<std::string, train::OutputMetrics> FromProto(
    const v1::OutputMetrics& m) {
  train::OutputMetrics out;
  out.classification = m.classification();
  train::ClassificationMetrics& c = out.classes;
  c.accuracy = m.accuracy();
  c.classes.assign(m.classes().begin(), m.classes().end());
  c.precision.assign(m.precision().begin(), m.precision().end());
  c.recall.assign(m.recall().begin(), m.recall().end());
  c.f1.assign(m.f1().begin(), m.f1().end());
  for (const v1::ConfusionRow& row : m.confusion_matrix()) {
    c.confusion.emplace_back(row.counts().begin(), row.counts().end());
  }
  out.regression.mae.assign(m.mae().begin(), m.mae().end());
  out.regression.rmse.assign(m.rmse().begin(), m.rmse().end());
  out.regression.r2.assign(m.r2().begin(), m.r2().end());
  return {m.name(), out};
}

}  // namespace webnnm::wire
