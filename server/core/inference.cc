#include "server/core/inference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "engine/api/nnmodel.h"
#include "engine/base/checked_math.h"
#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/checkpoint.h"
#include "server/core/daemon_metrics.h"
#include "server/core/infer_batcher.h"

namespace webnnm::server {

struct ServedModel {
  std::string key;  // job, snapshot kind, epoch and size
  std::string principal;  // the job's owner
  bool finished = false;  // of a SUCCEEDED job: the key cannot change
  std::unique_ptr<NNModel> model;
  ModelSummary summary;
  train::Imputation imputation;            // the first input's missing values
  train::Standardization standardization;  // the first input's
  // The other inputs', by name.
  std::map<std::string, train::Standardization> input_standardization;
  // Outputs trained on standardized targets: predictions map back.
  std::map<std::string, train::Standardization> target_standardization;
  std::vector<std::string> classes;
  absl::Mutex mutex;  // runs
  // Compiled contexts by batch bucket and sequence length, with the run
  // that last used each (the least recent goes first).
  struct Compiled {
    std::unique_ptr<Context> context;
    uint64_t used = 0;
  };
  std::map<std::pair<int64_t, int64_t>, Compiled> contexts
      ABSL_GUARDED_BY(mutex);
  uint64_t runs ABSL_GUARDED_BY(mutex) = 0;
  std::atomic<uint64_t> last_served{0};  // InferenceCache's clock
  // Dynamic batching of concurrent calls (infer_batcher.h); a negative
  // window runs each call alone.
  InferBatcher batcher;
  std::atomic<int64_t> batch_window_us{0};
};

namespace {

constexpr size_t kContextsPerModel = 16;
// Served models kept at once (the least recently served goes first; a
// request still running on it keeps it alive).
constexpr size_t kServedModels = 16;

// The batch a context is compiled for: the next power of two, so that a
// client sending every batch size from 1 to 128 compiles 8 contexts, not
// 128 (the padding rows are zeros; their results are dropped).
int64_t BatchBucket(int64_t batch) {
  int64_t bucket = 1;
  while (bucket < batch) bucket *= 2;
  return bucket;
}

template <typename T>
void DecodeAs(std::string_view bytes, std::vector<double>& out) {
  out.resize(bytes.size() / sizeof(T));
  for (size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
}

// The steps of a sequenced input's tensor: its values are [batch, T,
// step...] (or [batch, T·step]) for a step of `step` values.
absl::StatusOr<int64_t> SequenceSteps(const TensorSummary& d,
                                      const InferTensor& t, int64_t step) {
  const int64_t b = t.shape.empty() ? 0 : t.shape[0];
  const int64_t n = static_cast<int64_t>(t.values.size());
  if (b < 1 || step < 1 || n == 0 || n % b != 0 || (n / b) % step != 0) {
    std::string got;
    for (int64_t e : t.shape) got += StrCat(got.empty() ? "" : ", ", e);
    return absl::InvalidArgumentError(
        StrCat("input '", d.name, "' is a sequence of steps of ", step,
               " values: it needs shape [batch, steps, ...] with batch x "
               "steps x ", step, " values; got shape [", got, "] with ", n,
               " values"));
  }
  return n / b / step;
}

// The model's context compiled for `compiled` rows and `steps`, a few at
// a time (a client cannot make the daemon keep one for every shape it
// sends): the least recently used goes.
absl::StatusOr<Context*> ContextFor(ServedModel& m, int64_t compiled,
                                    int64_t steps)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(m.mutex) {
  const std::pair<int64_t, int64_t> shape{compiled, steps};
  if (m.contexts.size() >= kContextsPerModel && !m.contexts.count(shape)) {
    auto oldest = m.contexts.begin();
    for (auto it = m.contexts.begin(); it != m.contexts.end(); ++it) {
      if (it->second.used < oldest->second.used) oldest = it;
    }
    m.contexts.erase(oldest);
  }
  ServedModel::Compiled& slot = m.contexts[shape];
  slot.used = ++m.runs;
  if (!slot.context) {
    ASSIGN_OR_RETURN(slot.context, m.model->CreateContext());
    RETURN_IF_ERROR(slot.context->SetBatchSize(compiled));
    RETURN_IF_ERROR(slot.context->SetSequenceLength(steps));
  }
  return slot.context.get();
}

// The most rows of calls that run as one batch.
constexpr int64_t kMaxBatchRows = 64;

// One call, checked and standardized: its rows of each declared input, and
// its outputs once run.
struct Prepared {
  int64_t batch = 0;
  int64_t steps = 1;
  std::vector<std::vector<double>> values;  // by declared input
  std::vector<InferTensor> outputs;
};

// Runs calls of one sequence length as one batch: their rows one after
// the other (padded to the bucket), each call's rows of every output back
// to it, targets mapped back to their scale.
absl::Status Execute(ServedModel& m, const std::vector<Prepared*>& calls)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(m.mutex) {
  int64_t rows = 0;
  for (const Prepared* c : calls) rows += c->batch;
  const int64_t compiled = BatchBucket(rows);
  ASSIGN_OR_RETURN(Context * context, ContextFor(m, compiled, calls[0]->steps));
  const std::vector<TensorSummary>& declared = m.summary.inputs;
  for (size_t i = 0; i < declared.size(); ++i) {
    std::vector<double> values;
    const std::vector<double>* one = &calls[0]->values[i];
    if (calls.size() > 1 || calls[0]->batch != compiled) {
      for (const Prepared* c : calls) {
        values.insert(values.end(), c->values[i].begin(), c->values[i].end());
      }
      const size_t per_row = values.size() / static_cast<size_t>(rows);
      values.resize(per_row * static_cast<size_t>(compiled),
                    0.0);  // the bucket's padding rows
      one = &values;
    }
    RETURN_IF_ERROR(context->SetData(declared[i].name, *one));
  }
  RETURN_IF_ERROR(m.model->Run(*context));
  Metrics().infer_batch_calls.Observe(static_cast<double>(calls.size()));
  for (Prepared* c : calls) c->outputs.clear();
  for (const TensorSummary& d : m.summary.outputs) {
    ASSIGN_OR_RETURN(TensorView view, context->Output(d.name));
    auto t = m.target_standardization.find(d.name);
    const bool rescale =
        t != m.target_standardization.end() && !t->second.empty();
    const bool batched = !view.shape.empty() && view.shape[0] == compiled;
    const size_t per_row =
        batched ? view.values.size() / static_cast<size_t>(compiled) : 0;
    size_t row = 0;
    for (Prepared* c : calls) {
      InferTensor out{d.name, view.shape, {}};
      if (batched) {  // the call's own rows
        out.shape[0] = c->batch;
        out.values.assign(view.values.begin() + row * per_row,
                          view.values.begin() + (row + c->batch) * per_row);
        row += static_cast<size_t>(c->batch);
      } else {
        out.values = view.values;
      }
      if (rescale) {
        const size_t width = t->second.mean.size();
        for (size_t k = 0; k < out.values.size(); ++k) {
          out.values[k] = out.values[k] * t->second.stddev[k % width] +
                          t->second.mean[k % width];
        }
      }
      c->outputs.push_back(std::move(out));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<double>> DecodeRaw(std::string_view type,
                                              std::string_view bytes) {
  static const std::map<std::string_view, size_t> kWidths = {
      {"float32", 4}, {"float16", 2}, {"float64", 8}, {"int8", 1},
      {"uint8", 1},   {"int16", 2},   {"uint16", 2},  {"int32", 4},
      {"uint32", 4},  {"int64", 8},   {"uint64", 8},  {"bool", 1}};
  auto it = kWidths.find(type);
  if (it == kWidths.end()) {
    return absl::InvalidArgumentError(
        StrCat("raw data of type '", type, "' is not supported"));
  }
  if (bytes.size() % it->second != 0) {
    return absl::InvalidArgumentError(
        StrCat(bytes.size(), " raw bytes are not a whole number of ", type,
               " values"));
  }
  std::vector<double> out;
  if (type == "float32") {
    DecodeAs<float>(bytes, out);
  } else if (type == "float64") {
    DecodeAs<double>(bytes, out);
  } else if (type == "float16") {
    out.resize(bytes.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      out[i] = HalfToFloat(bits);
    }
  } else if (type == "int8") {
    DecodeAs<int8_t>(bytes, out);
  } else if (type == "uint8" || type == "bool") {
    DecodeAs<uint8_t>(bytes, out);
  } else if (type == "int16") {
    DecodeAs<int16_t>(bytes, out);
  } else if (type == "uint16") {
    DecodeAs<uint16_t>(bytes, out);
  } else if (type == "int32") {
    DecodeAs<int32_t>(bytes, out);
  } else if (type == "uint32") {
    DecodeAs<uint32_t>(bytes, out);
  } else if (type == "int64") {
    DecodeAs<int64_t>(bytes, out);
  } else {
    DecodeAs<uint64_t>(bytes, out);
  }
  return out;
}

InferenceCache::~InferenceCache() = default;

const ModelSummary& InferenceCache::Summary(const ServedModel& m) {
  return m.summary;
}
const std::vector<std::string>& InferenceCache::Classes(const ServedModel& m) {
  return m.classes;
}

void InferenceCache::Forget(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  models_.erase(job_id);
}

std::shared_ptr<ServedModel> InferenceCache::Finished(
    const std::string& job_id,
    const std::function<bool(const std::string&)>& owns) {
  absl::MutexLock lock(&mutex_);
  auto it = models_.find(job_id);
  if (it == models_.end() || !it->second->finished ||
      !owns(it->second->principal)) {
    return nullptr;
  }
  it->second->last_served = ++clock_;
  return it->second;
}

absl::StatusOr<std::shared_ptr<ServedModel>> InferenceCache::Get(
    Store& store, const Job& job) {
  const std::string& job_id = job.id;
  ASSIGN_OR_RETURN(std::optional<std::string> key,
                   store.LatestSnapshotKey(job_id));
  if (!key) {
    return absl::FailedPreconditionError(
        StrCat("job ", job_id, " has no snapshot to serve yet"));
  }
  {
    absl::MutexLock lock(&mutex_);
    auto it = models_.find(job_id);
    if (it != models_.end() && it->second->key == *key) {
      it->second->last_served = ++clock_;
      return it->second;
    }
  }
  // Built outside the lock; two first calls may both build it.
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                   store.LatestSnapshot(job_id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", job_id, " has no snapshot to serve yet"));
  }
  ASSIGN_OR_RETURN(train::ModelSnapshot snapshot,
                   train::DecodeModelSnapshot(blob->bytes));
  auto served = std::make_shared<ServedModel>();
  served->key = *key;
  served->principal = job.principal;
  served->finished = job.state == JobState::kSucceeded;
  std::string file =
      snapshot.model_file.empty() ? "model.wnm" : snapshot.model_file;
  CheckResult check = CheckModel(file, snapshot.model_source);
  if (!check.ok || !check.summary) {
    return absl::DataLossError(
        StrCat("the snapshot's model does not check:\n", webnnm::RenderedForStatus(check)));
  }
  served->summary = *check.summary;
  // The model checked once: NNModel takes its DAG.
  ASSIGN_OR_RETURN(
      served->model,
      NNModel::Create(
          {.source = snapshot.model_source, .file = file, .threads = threads_},
          *std::move(check.dag)));
  RETURN_IF_ERROR(served->model->SetParameters(snapshot.state.best));
  served->standardization = snapshot.standardization;
  served->target_standardization = snapshot.target_standardization;
  served->input_standardization = snapshot.input_standardization;
  served->imputation = snapshot.imputation;
  served->classes = snapshot.classes;
  absl::MutexLock lock(&mutex_);
  served->batch_window_us = absl::ToInt64Microseconds(batch_window_);
  served->last_served = ++clock_;
  models_[job_id] = served;
  while (models_.size() > kServedModels) {
    auto oldest = models_.begin();
    for (auto it = models_.begin(); it != models_.end(); ++it) {
      if (it->second->last_served < oldest->second->last_served) oldest = it;
    }
    models_.erase(oldest);
  }
  return served;
}

namespace {

std::string DimsText(const std::vector<int64_t>& dims, bool leading_comma) {
  std::string text;
  for (int64_t e : dims) {
    text += StrCat(text.empty() && !leading_comma ? "" : ", ", e);
  }
  return text;
}

// The batch size of input `t` for the declared `d` (whose samples hold
// `sample` values, steps included): its shape must be [batch, d's
// dimensions...] or, not sequenced, [batch, sample]; with as many values.
absl::StatusOr<int64_t> CheckedBatch(const TensorSummary& d,
                                     const InferTensor& t, int64_t sample) {
  const int64_t b = t.shape.empty() ? -1 : t.shape[0];
  for (int64_t e : t.shape) {
    if (e < 0) {
      return absl::InvalidArgumentError(
          StrCat("input '", d.name, "' has a negative dimension"));
    }
  }
  // Checked: a client's dimensions may be anything.
  std::optional<int64_t> elements = CheckedProduct(t.shape);
  std::optional<int64_t> expected = CheckedMul(b, sample);
  if (t.shape.empty() || !elements || !expected ||
      *elements != static_cast<int64_t>(t.values.size()) || b < 1 ||
      *elements != *expected) {
    return absl::InvalidArgumentError(StrCat(
        "input '", d.name, "' needs shape [batch", DimsText(d.shape, true),
        "] with as many values; got shape [", DimsText(t.shape, false),
        "] with ", t.values.size(), " values"));
  }
  // [batch, the declared dimensions...], or [batch, their product] (a
  // sample flattened); not another shape with as many values.
  const bool exact =
      t.shape.size() == d.shape.size() + 1 &&
      std::equal(d.shape.begin(), d.shape.end(), t.shape.begin() + 1);
  const bool flat = t.shape.size() == 2 && t.shape[1] == sample;
  if (!d.sequenced && !exact && !flat) {
    return absl::InvalidArgumentError(StrCat(
        "input '", d.name, "' needs shape [batch", DimsText(d.shape, true),
        "] (or [batch, ", sample, "]); got shape [", DimsText(t.shape, false),
        "]"));
  }
  return b;
}

}  // namespace

namespace {

// Checks the inputs against the model's and makes its call: the values in
// the declared order, imputed and standardized as in training.
absl::StatusOr<Prepared> Prepare(const ServedModel& m,
                                 const std::vector<InferTensor>& inputs,
                                 int64_t max_elements) {
  const std::vector<TensorSummary>& declared = m.summary.inputs;
  std::map<std::string, const InferTensor*> given;
  for (const InferTensor& t : inputs) {
    std::string name =
        t.name.empty() && !declared.empty() ? declared[0].name : t.name;
    bool known = false;
    for (const TensorSummary& d : declared) known |= d.name == name;
    if (!known) {
      return absl::InvalidArgumentError(
          StrCat("the model has no input '", name, "'"));
    }
    if (given.count(name)) {
      return absl::InvalidArgumentError(
          StrCat("input '", name, "' is given twice"));
    }
    given[name] = &t;
  }
  int64_t batch = -1;
  int64_t steps = -1;  // of the sequenced inputs
  int64_t total = 0;
  for (const TensorSummary& d : declared) {
    auto it = given.find(d.name);
    if (it == given.end()) {
      return absl::InvalidArgumentError(
          StrCat("input '", d.name, "' is missing"));
    }
    int64_t sample = 1;
    for (int64_t e : d.shape) sample *= e;
    const InferTensor& t = *it->second;
    if (d.sequenced) {
      ASSIGN_OR_RETURN(const int64_t s, SequenceSteps(d, t, sample));
      if (steps >= 0 && s != steps) {
        return absl::InvalidArgumentError(
            "every sequenced input needs the same number of steps");
      }
      steps = s;
      sample *= s;
    }
    total += static_cast<int64_t>(t.values.size());
    if (total > max_elements) {
      return absl::ResourceExhaustedError(
          StrCat("the inputs have more than ", max_elements,
                 " elements (the daemon's limit)"));
    }
    ASSIGN_OR_RETURN(const int64_t b, CheckedBatch(d, t, sample));
    if (batch >= 0 && b != batch) {
      return absl::InvalidArgumentError(
          "every input needs the same batch size");
    }
    batch = b;
  }
  if (batch > 65536) {
    return absl::ResourceExhaustedError("batches are limited to 65536");
  }
  if (steps > 65536) {
    return absl::ResourceExhaustedError("sequences are limited to 65536 steps");
  }
  steps = std::max<int64_t>(steps, 1);
  Prepared call{batch, steps};
  for (size_t i = 0; i < declared.size(); ++i) {
    const TensorSummary& d = declared[i];
    std::vector<double> values = given[d.name]->values;
    // A model trained with imputation fills a NaN feature of its first
    // input as training did (one value per feature).
    const std::vector<float>& fill = m.imputation.values;
    if (i == 0 && !fill.empty()) {
      if (values.size() != fill.size() * static_cast<size_t>(batch)) {
        return absl::InvalidArgumentError(StrCat(
            "input '", d.name, "': the model imputes samples of ",
            fill.size(), " values, as it was trained; got ",
            values.size() / static_cast<size_t>(batch), " a sample"));
      }
      for (size_t k = 0; k < values.size(); ++k) {
        if (std::isnan(values[k])) values[k] = fill[k % fill.size()];
      }
    }
    // A missing value the model cannot fill would flow through the
    // network as NaN and answer something meaningless: refused.
    for (size_t k = 0; k < values.size(); ++k) {
      if (!std::isnan(values[k])) continue;
      const size_t width = values.size() / static_cast<size_t>(batch);
      return absl::InvalidArgumentError(StrCat(
          "input '", d.name, "': sample ", k / width + 1, " misses value ",
          k % width + 1,
          " (NaN), and the job fills no missing values (it "
          "trained on data without any: train with --impute mean or median "
          "to fill them)"));
    }
    // The snapshot's standardization: the first input's, and the others'
    // by name.
    auto other = m.input_standardization.find(d.name);
    const train::Standardization& s =
        i == 0 ? m.standardization
        : other != m.input_standardization.end() ? other->second
                                                 : train::Standardization{};
    if (!s.empty()) {
      size_t width = s.mean.size();
      if (values.size() != width * static_cast<size_t>(batch)) {
        return absl::InvalidArgumentError(StrCat(
            "input '", d.name, "': the model standardizes samples of ", width,
            " values, as it was trained; got ",
            values.size() / static_cast<size_t>(batch), " a sample"));
      }
      for (size_t k = 0; k < values.size(); ++k) {
        values[k] = (values[k] - s.mean[k % width]) / s.stddev[k % width];
      }
    }
    call.values.push_back(std::move(values));
  }
  return call;
}

// Runs a batch of the batcher's calls (their payloads are Prepared).
InferBatcher::RunBatch BatchRunner(ServedModel& m) {
  return [&m](const std::vector<InferBatcher::Call*>& calls) {
    std::vector<Prepared*> batch_calls;
    for (InferBatcher::Call* c : calls) {
      batch_calls.push_back(static_cast<Prepared*>(c->payload));
    }
    absl::MutexLock lock(&m.mutex);
    return Execute(m, batch_calls);
  };
}

}  // namespace

absl::StatusOr<std::vector<InferTensor>> InferenceCache::Run(
    ServedModel& m, const std::vector<InferTensor>& inputs,
    int64_t max_elements) {
  // On its way from here: a batch forming with a window waits for it.
  InferBatcher::Arrival arrival(m.batcher);
  ASSIGN_OR_RETURN(Prepared call, Prepare(m, inputs, max_elements));
  const int64_t window_us = m.batch_window_us.load();
  if (window_us < 0) {
    absl::MutexLock lock(&m.mutex);
    RETURN_IF_ERROR(Execute(m, {&call}));
    return std::move(call.outputs);
  }
  InferBatcher::Call queued{
      .rows = call.batch, .key = call.steps, .payload = &call};
  RETURN_IF_ERROR(m.batcher.Submit(arrival, queued,
                                   absl::Microseconds(window_us), kMaxBatchRows,
                                   BatchRunner(m)));
  return std::move(call.outputs);
}

void InferenceCache::RunAsync(std::shared_ptr<ServedModel> model,
                              const std::vector<InferTensor>& inputs,
                              int64_t max_elements, InferDone done) {
  // Kept while this thread may lead (the call's own copy goes with it).
  const std::shared_ptr<ServedModel> keep = model;
  ServedModel& m = *keep;
  InferBatcher::Arrival arrival(m.batcher);
  absl::StatusOr<Prepared> prepared = Prepare(m, inputs, max_elements);
  if (!prepared.ok()) {
    done(prepared.status());
    return;
  }
  // Without batching (a negative window) each call is a batch of its own,
  // still queued: a handler never waits for another call's run.
  const int64_t window_us = m.batch_window_us.load();
  const absl::Duration window =
      absl::Microseconds(std::max<int64_t>(0, window_us));
  const int64_t max_rows = window_us < 0 ? 1 : kMaxBatchRows;
  // The call's state until it ran: freed by `finished`, on whichever
  // thread ran its batch (the model kept alive with it).
  struct Pending {
    std::shared_ptr<ServedModel> model;
    Prepared call;
    InferBatcher::Call queued;
    InferDone done;
  };
  auto* p =
      new Pending{std::move(model), *std::move(prepared), {}, std::move(done)};
  p->queued =
      InferBatcher::Call{.rows = p->call.batch,
                         .key = p->call.steps,
                         .payload = &p->call,
                         .finished = [p](const absl::Status& status) {
                           std::unique_ptr<Pending> owned(p);
                           if (status.ok()) {
                             owned->done(std::move(owned->call.outputs));
                           } else {
                             owned->done(status);
                           }
                         }};
  const InferBatcher::RunBatch run = BatchRunner(m);  // while this leads
  m.batcher.SubmitAsync(arrival, p->queued, window, max_rows, run);
}

void InferenceCache::SetBatchWindow(absl::Duration window) {
  absl::MutexLock lock(&mutex_);
  batch_window_ = window;
  for (auto& [id, model] : models_) {
    model->batch_window_us = absl::ToInt64Microseconds(window);
  }
}

}  // namespace webnnm::server
