#include "server/core/access.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/snapshot.h"

namespace webnnm::server {

absl::StatusOr<StoredJob> VisibleJob(Store& store, const Principal& who,
                                     const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError("no job id given");
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store.GetJob(id));
  if (!stored || !who.Owns(stored->job.principal)) {
    return absl::NotFoundError(StrCat("no job ", id));
  }
  return *stored;
}

absl::StatusOr<StoredJob> ServableJob(Store& store, const Principal& who,
                                      const std::string& id) {
  ASSIGN_OR_RETURN(StoredJob job, VisibleJob(store, who, id));
  if (job.job.state != JobState::kSucceeded || job.job.kind == JobKind::kTest) {
    return absl::FailedPreconditionError(
        StrCat("job ", id,
               " is not a finished training job (or an imported snapshot)"));
  }
  return job;
}

absl::StatusOr<std::string> ExportedSnapshot(Store& store,
                                             const Principal& who,
                                             const std::string& id) {
  RETURN_IF_ERROR(VisibleJob(store, who, id).status());
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob, store.LatestSnapshot(id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " has no snapshot yet"));
  }
  // A stored snapshot that no longer verifies is not served: the client
  // would import a damaged model.
  if (absl::Status verified = train::DecodeSnapshot(blob->bytes).status();
      !verified.ok()) {
    return absl::DataLossError(StrCat("the stored snapshot of job ", id,
                                      " is damaged: ", verified.message()));
  }
  return std::move(blob->bytes);
}

namespace {

// Whether a listing shows `job` (jobs from before names go by their
// model's name).
bool Wanted(const JobQuery& query, const Job& job) {
  const std::string& name = job.name.empty() ? job.model_name : job.name;
  if (!query.name.empty() && !GlobMatch(query.name, name)) return false;
  for (const auto& [key, value] : query.tags) {
    auto it = job.tags.find(key);
    if (it == job.tags.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<JobPage> ListJobPage(Store& store, const Principal& who,
                                    const JobQuery& query) {
  const int size =
      query.page_size <= 0 ? 50 : std::min(query.page_size, 1000);
  int64_t offset = 0;
  if (!query.page_token.empty()) {
    char* end = nullptr;
    offset = std::strtoll(query.page_token.c_str(), &end, 10);
    if (*end != '\0' || offset < 0) {
      return absl::InvalidArgumentError("bad page token");
    }
  }
  // With tags or a name to match, the store's jobs are read in batches
  // until a page is full; the token stays an offset in the store's list.
  const bool filtered = !query.tags.empty() || !query.name.empty();
  const int batch = filtered ? 1000 : size + 1;
  JobPage page;
  for (int64_t at = offset;; at += batch) {
    ASSIGN_OR_RETURN(std::vector<Job> jobs,
                     store.ListJobs(who.Filter(), query.state, at, batch));
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (!Wanted(query, jobs[i])) continue;
      if (static_cast<int>(page.jobs.size()) == size) {  // a next page
        page.next_page = std::to_string(at + static_cast<int64_t>(i));
        return page;
      }
      page.jobs.push_back(std::move(jobs[i]));
    }
    if (static_cast<int>(jobs.size()) < batch) break;
  }
  return page;
}

namespace {

// Every job of `who` that `query` matches (newest first).
absl::StatusOr<std::vector<Job>> AllJobs(Store& store, const Principal& who,
                                         JobQuery query) {
  std::vector<Job> all;
  query.page_size = 1000;
  for (;;) {
    ASSIGN_OR_RETURN(JobPage page, ListJobPage(store, who, query));
    for (Job& j : page.jobs) all.push_back(std::move(j));
    if (page.next_page.empty()) return all;
    query.page_token = page.next_page;
  }
}

absl::Status Ambiguous(const std::string& ref, const std::string& what,
                       const std::vector<const Job*>& jobs) {
  std::string list;
  for (size_t i = 0; i < jobs.size() && i < 10; ++i) {
    list += StrCat(i ? ", " : "", jobs[i]->id, " (",
                   jobs[i]->name.empty() ? jobs[i]->model_name : jobs[i]->name,
                   ", ", StateName(jobs[i]->state), ")");
  }
  if (jobs.size() > 10) list += StrCat(" and ", jobs.size() - 10, " more");
  return absl::InvalidArgumentError(
      StrCat("'", ref, "' is ", what, " of ", jobs.size(), " jobs: ", list));
}

}  // namespace

absl::StatusOr<std::string> ResolveJobRef(Store& store, const Principal& who,
                                          const std::string& ref) {
  if (ref.empty()) return absl::InvalidArgumentError("no job id given");
  if (absl::StatusOr<StoredJob> job = VisibleJob(store, who, ref); job.ok()) {
    return job->job.id;
  } else if (!absl::IsNotFound(job.status())) {
    return job.status();
  }
  ASSIGN_OR_RETURN(std::vector<Job> aliased,
                   AllJobs(store, who, {.tags = {{"alias", ref}}}));
  if (!aliased.empty()) return aliased.front().id;
  ASSIGN_OR_RETURN(std::vector<Job> jobs, AllJobs(store, who, {}));
  std::vector<const Job*> named, prefixed;
  for (const Job& j : jobs) {
    if (j.name == ref) named.push_back(&j);
    if (j.id.starts_with(ref)) prefixed.push_back(&j);
  }
  if (named.size() == 1) return named.front()->id;
  if (named.size() > 1) return Ambiguous(ref, "the name", named);
  if (prefixed.size() == 1) return prefixed.front()->id;
  if (prefixed.size() > 1)
    return Ambiguous(ref, "a prefix of the ids", prefixed);
  return absl::NotFoundError(StrCat("no job ", ref));
}

absl::StatusOr<Job> RelabelJob(Store& store, const Principal& who,
                               const std::string& id,
                               const LabelChange& change) {
  ASSIGN_OR_RETURN(StoredJob job, VisibleJob(store, who, id));
  auto apply = [&change](Job& j) {
    for (const std::string& key : change.remove) j.tags.erase(key);
    for (const auto& [key, value] : change.set) j.tags[key] = value;
    if (change.name) j.name = *change.name;
    if (change.note) j.note = *change.note;
  };
  Job changed = job.job;
  apply(changed);
  RETURN_IF_ERROR(CheckLabels(changed.name, changed.tags, changed.note));
  if (auto alias = change.set.find("alias"); alias != change.set.end()) {
    ASSIGN_OR_RETURN(std::vector<Job> holders,
                     AllJobs(store, who, {.tags = {{"alias", alias->second}}}));
    for (const Job& h : holders) {
      if (h.id == id) continue;
      RETURN_IF_ERROR(store
                          .Update(h.id,
                                  [&alias](Job& j) {
                                    auto t = j.tags.find("alias");
                                    if (t != j.tags.end() &&
                                        t->second == alias->second) {
                                      j.tags.erase(t);
                                    }
                                  },
                                  {})
                          .status());
    }
  }
  absl::Status bad;
  ASSIGN_OR_RETURN(Job stored, store.Update(id,
                                            [&](Job& j) {
                                              Job next = j;
                                              apply(next);
                                              bad = CheckLabels(next.name,
                                                                next.tags,
                                                                next.note);
                                              if (bad.ok()) j = std::move(next);
                                            },
                                            {}));
  RETURN_IF_ERROR(bad);
  return stored;
}

absl::StatusOr<std::vector<NodeRecord>> VisibleNodes(Store& store,
                                                     JobManager& jobs,
                                                     const Principal& who) {
  // Live: seen within a lease (a dead daemon's jobs are requeued then).
  ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes,
                   store.ListNodes(std::max(
                       jobs.lease(), std::chrono::milliseconds(5000))));
  // Whose the running jobs are: the caller sees only its own.
  std::map<std::string, std::string> owner;
  ASSIGN_OR_RETURN(std::vector<Job> running,
                   store.ListJobs("", JobState::kRunning, 0, 100000));
  for (const Job& j : running) owner[j.id] = j.principal;
  for (NodeRecord& n : nodes) {
    std::erase_if(n.running, [&](const std::string& id) {
      auto it = owner.find(id);
      return it == owner.end() || !who.Owns(it->second);
    });
  }
  return nodes;
}

}  // namespace webnnm::server
