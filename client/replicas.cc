#include "client/replicas.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "engine/base/strings.h"

namespace webnnm::client {

absl::StatusOr<std::unique_ptr<Replicas>> Replicas::Start(
    int size, const std::vector<std::string>& argv, const ReplicaFlags& flags) {
  std::unique_ptr<Replicas> r(new Replicas());
  char pattern[] = "/tmp/webnnm-replicas-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    return absl::InternalError(
        StrCat("cannot make a rendezvous folder: ", std::strerror(errno)));
  }
  r->folder_ = pattern;
  const pid_t parent = ::getpid();
  for (int rank = 1; rank < size; ++rank) {
    std::vector<std::string> args = argv;
    args.push_back("--replica-rank");
    args.push_back(std::to_string(rank));
    args.push_back("--rendezvous");
    args.push_back(r->folder_);
    std::vector<char*> c_args;
    for (std::string& a : args) c_args.push_back(a.data());
    c_args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      return absl::InternalError(
          StrCat("cannot start replica ", rank, ": ", std::strerror(errno)));
    }
    if (pid == 0) {
      // The child: gone with replica 0, deaf to Ctrl-C, quiet on stdout.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(1);
      ::signal(SIGINT, SIG_IGN);
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) ::dup2(null, STDOUT_FILENO);
      ::execv("/proc/self/exe", c_args.data());
      ::_exit(127);
    }
    r->children_.push_back(pid);
  }
  return r;
}

absl::Status Replicas::Finish(bool kill) {
  std::string failed;
  for (size_t i = 0; i < children_.size(); ++i) {
    const pid_t pid = children_[i];
    if (pid <= 0) continue;
    if (kill) ::kill(pid, SIGTERM);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    children_[i] = 0;
    if (kill) continue;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    failed += StrCat(failed.empty() ? "" : ", ", "replica ", i + 1, " ",
                     WIFSIGNALED(status)
                         ? StrCat("was killed (signal ", WTERMSIG(status), ")")
                         : StrCat("exited ", WEXITSTATUS(status)));
  }
  if (!failed.empty()) return absl::UnavailableError(failed);
  return absl::OkStatus();
}

Replicas::~Replicas() {
  (void)Finish(/*kill=*/true);
  std::error_code ec;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ec);
}

absl::StatusOr<std::unique_ptr<dist::GlooCollective>> ConnectReplica(
    int size, const ReplicaFlags& flags, const std::string& folder) {
  return dist::GlooCollective::Connect(
      {.rank = flags.rank,
       .size = size,
       .address = "127.0.0.1",
       .timeout = std::chrono::seconds(flags.timeout_seconds),
       .folder = folder,
       .prefix = "train"});
}

}  // namespace webnnm::client
