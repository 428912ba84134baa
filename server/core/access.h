// What a principal may see: its own jobs, datasets and nodes' running jobs
// (an admin: everyone's). Another principal's job is NotFound, never told
// apart from none. The RPC edge's read calls are these, converted.
#ifndef WEBNNM_SERVER_CORE_ACCESS_H_
#define WEBNNM_SERVER_CORE_ACCESS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/job.h"
#include "server/core/jobs.h"
#include "server/core/principal.h"
#include "server/core/store.h"

namespace webnnm::server {

// The job `id` if `who` may see it; NotFound "no job ID" otherwise,
// InvalidArgument for "".
absl::StatusOr<StoredJob> VisibleJob(Store& store, const Principal& who,
                                     const std::string& id);

// The job if `who` may see it and it has a model to serve: a succeeded
// training job or an imported snapshot (FailedPrecondition otherwise).
absl::StatusOr<StoredJob> ServableJob(Store& store, const Principal& who,
                                      const std::string& id);

// The id of the job `ref` names for `who`, as users name jobs (KServe's
// model names, docs/daemon.md): the job's id; else the job tagged
// alias=REF (the newest, should two hold it); else the job named REF;
// else the one job whose id starts with REF. NotFound "no job REF" when
// nothing matches; InvalidArgument listing the matches (newest first, at
// most 10) when several jobs share the name or the prefix.
absl::StatusOr<std::string> ResolveJobRef(Store& store, const Principal& who,
                                          const std::string& ref);

// A change of a job's labels (TagJob): tags to set and keys to remove, a
// new name, a new note ("" removes it).
struct LabelChange {
  std::map<std::string, std::string> set;
  std::vector<std::string> remove;
  std::optional<std::string> name, note;
};
// Applies `change` to job `id` as stored at that moment (a running job's
// state moves meanwhile), checked there (CheckLabels): a change past the
// limits leaves the job as it was. Setting the tag "alias" moves the
// alias: `who`'s other jobs tagged with the same alias lose the tag first
// (two moves at once may leave two holders; ResolveJobRef takes the
// newest). Returns the job as stored.
absl::StatusOr<Job> RelabelJob(Store& store, const Principal& who,
                               const std::string& id,
                               const LabelChange& change);

// The newest snapshot of a job `who` may see, verified (its checksum, its
// table): FailedPrecondition without one, DataLoss when it is damaged.
absl::StatusOr<std::string> ExportedSnapshot(Store& store,
                                             const Principal& who,
                                             const std::string& id);

// Which jobs a listing shows, and from where.
struct JobQuery {
  JobState state = JobState::kUnspecified;  // kUnspecified: any
  std::string name;                         // a glob; "": any
  std::map<std::string, std::string> tags;  // every one must match
  int page_size = 0;                        // <= 0: 50; at most 1000
  std::string page_token;                   // "" or a previous next_page
};
struct JobPage {
  std::vector<Job> jobs;
  std::string next_page;  // "" on the last page
};
// A page of `who`'s jobs, newest first (InvalidArgument for a bad token).
absl::StatusOr<JobPage> ListJobPage(Store& store, const Principal& who,
                                    const JobQuery& query);

// The live daemons (seen within a lease, at least 5 s), each listing only
// the running jobs `who` may see.
absl::StatusOr<std::vector<NodeRecord>> VisibleNodes(Store& store,
                                                     JobManager& jobs,
                                                     const Principal& who);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_ACCESS_H_
