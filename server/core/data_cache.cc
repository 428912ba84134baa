#include "server/core/data_cache.h"

#include "engine/base/strings.h"
#include "engine/train/feeder.h"

namespace webnnm::server {
namespace {

int64_t BytesOf(const train::Dataset& d) {
  int64_t bytes = d.count() * d.width() * 4;
  for (const train::Features& f : d.more_inputs()) {
    bytes += static_cast<int64_t>(f.values.size()) * 4;
  }
  for (const train::Targets& t : d.targets()) {
    bytes += static_cast<int64_t>(t.values.size()) * 4;
  }
  return bytes;
}

}  // namespace

absl::StatusOr<train::Dataset> DataCache::Read(
    const dag::Dag& dag, const train::DataSource& source) {
  // What the reading depends on: the source's options and the model's
  // inputs and outputs (an .npz archive's arrays, an image folder's size).
  std::string key =
      StrCat(source.path, "\n", source.label, "\n", source.no_header, "\n",
             source.keep_missing, "\n", source.resize, "\n",
             train::ReadsClasses(dag));
  for (const dag::Endpoint& e : dag.inputs) {
    key += StrCat("\n", e.name, " ",
                  dag.graph.value(dag.graph.node(e.node).outputs[0])
                      .type.ToString());
  }
  // The outputs' shapes: a CSV's label column is chosen for the first one.
  for (const dag::Endpoint& e : dag.outputs) {
    key += StrCat("\n>", e.name, " ", train::OutputWidth(dag, e.name));
  }
  // A trained model's encoding of a CSV's text columns.
  if (source.text) {
    key += "\ntext";
    for (const train::TextColumn& c : source.text->columns) {
      key += StrCat("\n", c.name, ":", c.categories.size());
      for (const std::string& v : c.categories) key += StrCat("\t", v);
    }
    for (const std::string& d : source.text->dropped) key += "\n-" + d;
  }
  {
    absl::MutexLock lock(&mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      ++hits_;
      recent_.splice(recent_.begin(), recent_, it->second.recent);
      return *it->second.data;
    }
    ++misses_;
  }
  absl::StatusOr<train::Dataset> read = train::ReadDataFor(dag, source);
  if (!read.ok()) return read.status();
  const int64_t bytes = BytesOf(*read);
  if (bytes > max_bytes_) return read;
  auto kept = std::make_shared<const train::Dataset>(*read);
  absl::MutexLock lock(&mutex_);
  if (entries_.count(key)) return read;  // another read won
  recent_.push_front(key);
  entries_[key] = {std::move(kept), bytes, recent_.begin()};
  bytes_ += bytes;
  while (bytes_ > max_bytes_ && !recent_.empty()) {
    auto oldest = entries_.find(recent_.back());
    bytes_ -= oldest->second.bytes;
    entries_.erase(oldest);
    recent_.pop_back();
  }
  return read;
}

int64_t DataCache::hits() const {
  absl::MutexLock lock(&mutex_);
  return hits_;
}

int64_t DataCache::misses() const {
  absl::MutexLock lock(&mutex_);
  return misses_;
}

}  // namespace webnnm::server
