#include "engine/api/predict.h"

#include <algorithm>
#include <filesystem>

#include "engine/api/nnmodel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/image_folder.h"
#include "engine/train/feeder.h"
#include "engine/train/metrics.h"
#include "engine/train/sequence.h"
#include "engine/train/trainer.h"

namespace webnnm {
namespace {

absl::StatusOr<train::Dataset> ReadFeatures(const PredictRequest& r) {
  const std::string& path = r.source.path;
  if (train::IsNpz(path)) {
    train::NpzSpec spec = train::NpzSpecFor(*r.dag);
    spec.targets_optional = true;
    spec.keep_missing = !r.snapshot->imputation.empty();
    if (r.source.max_bytes > 0) spec.max_bytes = r.source.max_bytes;
    return train::LoadNpz(path, spec);
  }
  if (std::filesystem::is_directory(path) || train::IsImageArchive(path) ||
      r.dag->inputs.size() != 1) {
    // An image folder or IDX directory, or a model only an .npz feeds: as
    // for training.
    if (r.dag->inputs.size() != 1 && !std::filesystem::is_directory(path) &&
        !train::IsImageArchive(path)) {
      return absl::FailedPreconditionError(
          StrCat("a CSV file feeds a model with one input; this one has ",
                 r.dag->inputs.size(), " (an .npz archive feeds any)"));
    }
    return train::ReadDataFor(*r.dag, r.source);
  }
  return train::LoadCsvFeatures(
      path, {.label = r.source.label.empty() ? r.snapshot->label_column
                                             : r.source.label,
             .text = r.snapshot->text_encoding,
             .header = !r.source.no_header,
             .keep_missing = !r.snapshot->imputation.empty()});
}

// How each output reads: classification (with its class rule and names)
// or regression (with the statistics that map it back).
struct OutputReading {
  OutputPredictions out;
  train::ClassRule rule;
  const train::Standardization* back = nullptr;
};

absl::StatusOr<std::vector<OutputReading>> Readings(const PredictRequest& r) {
  const train::ModelSnapshot& s = *r.snapshot;
  ASSIGN_OR_RETURN(std::vector<train::OutputSpec> specs,
                   train::OutputSpecs(*r.dag, s.state.hyper, nullptr));
  std::vector<OutputReading> readings;
  for (size_t k = 0; k < specs.size(); ++k) {
    OutputReading o;
    o.out.name = specs[k].name;
    o.out.units = train::OutputWidth(*r.dag, specs[k].name);
    o.out.sequenced = train::OutputSequenced(*r.dag, specs[k].name);
    o.out.classification = train::IsClassification(specs[k].loss);
    if (o.out.classification) {
      o.rule = train::ClassRuleOf(*r.dag, specs[k]);
      const int64_t n = std::max<int64_t>(2, o.out.units);
      if (k == 0 && static_cast<int64_t>(s.classes.size()) == n) {
        o.out.classes = s.classes;
      } else {
        for (int64_t c = 0; c < n; ++c) o.out.classes.push_back(StrCat(c));
      }
    }
    auto back = s.target_standardization.find(specs[k].name);
    if (back != s.target_standardization.end() && !back->second.empty()) {
      o.back = &back->second;
    }
    readings.push_back(std::move(o));
  }
  return readings;
}

// Appends `rows` samples of `values` (rows of `steps` x `units`, maybe
// more rows).
void Append(OutputReading& o, const std::vector<double>& values, int64_t rows) {
  const int64_t units = o.out.units;
  const int64_t n = rows * o.out.steps;  // steps of all the rows
  std::vector<float> step(units);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t u = 0; u < units; ++u) {
      double v = values[i * units + u];
      if (o.back)
        v = v * o.back->stddev[u % o.back->stddev.size()] +
            o.back->mean[u % o.back->mean.size()];
      o.out.values.push_back(v);
      step[u] = static_cast<float>(values[i * units + u]);
    }
    if (o.out.classification) {
      o.out.predicted.push_back(train::PredictedClass(step.data(), o.rule));
    }
  }
}

// Data or a snapshot that does not suit the model: FailedPrecondition, as
// Run::Prepare says it (NotFound stays).
absl::Status Unsuited(const absl::Status& s) {
  if (s.ok() || absl::IsNotFound(s)) return s;
  return absl::FailedPreconditionError(s.message());
}

}  // namespace

absl::StatusOr<Predictions> Predict(const PredictRequest& r) {
  if (r.dag == nullptr || r.snapshot == nullptr || r.batch < 1) {
    return absl::InvalidArgumentError("predict needs a model and a snapshot");
  }
  const dag::Dag& dag = *r.dag;
  RETURN_IF_ERROR(Unsuited(train::CheckSnapshotFits(*r.snapshot, dag)));
  absl::StatusOr<train::Dataset> read = ReadFeatures(r);
  if (!read.ok()) return Unsuited(read.status());
  train::Dataset& data = *read;
  // The input's size, its steps and integer values, as for training.
  RETURN_IF_ERROR(Unsuited(train::CheckShapes(dag, data, {})));
  absl::StatusOr<int64_t> steps = train::SequenceLength(dag, data);
  if (!steps.ok()) return Unsuited(steps.status());
  RETURN_IF_ERROR(Unsuited(data.ApplyImputation(r.snapshot->imputation)));
  if (!r.snapshot->standardization.empty()) {
    RETURN_IF_ERROR(
        Unsuited(data.ApplyStandardization(r.snapshot->standardization)));
  }
  RETURN_IF_ERROR(Unsuited(
      data.ApplyInputStandardizations(r.snapshot->input_standardization)));
  ASSIGN_OR_RETURN(std::vector<OutputReading> readings, Readings(r));
  for (OutputReading& o : readings) {
    if (!o.out.sequenced) continue;
    o.out.steps = *steps;
    for (int64_t i = 0; i < data.count(); ++i) {
      o.out.lengths.push_back(data.RealSteps(i, *steps));
    }
  }

  ASSIGN_OR_RETURN(std::unique_ptr<NNModel> model,
                   NNModel::Create({.source = r.model_source,
                                    .backend = r.backend,
                                    .threads = r.threads},
                                   dag));
  const train::Params& best = r.snapshot->state.best.empty()
                                  ? r.snapshot->state.params
                                  : r.snapshot->state.best;
  RETURN_IF_ERROR(model->SetParameters(best));
  const int64_t batch =
      std::min<int64_t>(r.batch, std::max<int64_t>(1, data.count()));
  ASSIGN_OR_RETURN(std::unique_ptr<Context> context, model->CreateContext());
  RETURN_IF_ERROR(context->SetBatchSize(batch));
  RETURN_IF_ERROR(context->SetSequenceLength(*steps));
  absl::StatusOr<std::vector<int>> matched = train::MatchInputs(dag, data);
  if (!matched.ok()) return Unsuited(matched.status());
  const std::vector<int>& sources = *matched;
  std::vector<double> rows;
  std::vector<int64_t> lengths;
  for (int64_t begin = 0; begin < data.count(); begin += batch) {
    const int64_t n = std::min(batch, data.count() - begin);
    if (data.ragged()) {  // first: it may recompile, resetting the inputs
      lengths.assign(data.lengths().begin() + begin,
                     data.lengths().begin() + begin + n);
      RETURN_IF_ERROR(Unsuited(context->SetStepLengths(lengths)));
    }
    for (size_t k = 0; k < dag.inputs.size(); ++k) {
      const int64_t width =
          sources[k] < 0 ? data.width() : data.more_inputs()[sources[k]].width;
      rows.assign(batch * width, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const float* f = sources[k] < 0
                             ? data.features(begin + i)
                             : data.more_inputs()[sources[k]].values.data() +
                                   (begin + i) * width;
        std::copy(f, f + width, rows.begin() + i * width);
      }
      RETURN_IF_ERROR(context->SetData(dag.inputs[k].name, rows));
    }
    RETURN_IF_ERROR(model->Run(*context));
    for (OutputReading& o : readings) {
      ASSIGN_OR_RETURN(TensorView view, context->Output(o.out.name));
      Append(o, view.values, n);
    }
  }
  Predictions p;
  p.samples = data.count();
  for (OutputReading& o : readings) p.outputs.push_back(std::move(o.out));
  return p;
}

}  // namespace webnnm
