#include "server/store/testing/postgres_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "engine/base/strings.h"
#include "server/store/pg.h"

namespace webnnm::server::testing {
namespace {

namespace fs = std::filesystem;

// The folder of initdb and pg_ctl: the newest /usr/lib/postgresql/N/bin.
std::string FindBin() {
  std::string best;
  std::error_code ec;
  for (const fs::directory_entry& e :
       fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = e.path() / "bin";
    if (fs::exists(bin / "initdb", ec) && bin.string() > best) {
      best = bin.string();
    }
  }
  return best;
}

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t size = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::unique_ptr<PostgresServer> s(new PostgresServer());
  s->bin_ = FindBin();
  if (s->bin_.empty()) {
    return absl::UnavailableError(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; "
        "scripts/bootstrap installs it)");
  }
  s->as_postgres_ = ::geteuid() == 0;
  char pattern[] = "/tmp/webnnm-pg-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    return absl::UnavailableError("cannot make a temporary folder");
  }
  s->folder_ = pattern;
  std::string prefix;
  if (s->as_postgres_) {
    const passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr) {
      return absl::UnavailableError(
          "running as root, and there is no `postgres` user to run "
          "PostgreSQL as");
    }
    if (::chown(s->folder_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return absl::UnavailableError("cannot give the folder to postgres");
    }
    prefix = "runuser -u postgres -- ";
  }
  const std::string data = s->folder_ + "/data";
  const std::string init = StrCat(prefix, s->bin_, "/initdb -D ", data,
                                  " -A trust -U webnnm -E UTF8 --no-sync > ",
                                  s->folder_, "/initdb.log 2>&1");
  if (std::system(init.c_str()) != 0) {
    return absl::UnavailableError(
        StrCat("initdb failed (", s->folder_, "/initdb.log)"));
  }
  // A free port can be taken between the probe and the start: try again.
  for (int tries = 0; tries < 5; ++tries) {
    s->port_ = FreePort();
    const std::string start = StrCat(
        prefix, s->bin_, "/pg_ctl -D ", data, " -w -t 60 -l ", s->folder_,
        "/server.log -o \"-h 127.0.0.1 -p ", s->port_, " -k ", s->folder_,
        " -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        "-c max_connections=200\" start > /dev/null 2>&1");
    if (std::system(start.c_str()) == 0) return s;
  }
  return absl::UnavailableError(StrCat("the PostgreSQL server did not start (",
                                       s->folder_, "/server.log)"));
}

PostgresServer::~PostgresServer() {
  if (port_ != 0) {
    const std::string stop =
        StrCat(as_postgres_ ? "runuser -u postgres -- " : "", bin_,
               "/pg_ctl -D ", folder_,
               "/data -m immediate -w stop > "
               "/dev/null 2>&1");
    (void)std::system(stop.c_str());
  }
  std::error_code ec;
  if (!folder_.empty()) fs::remove_all(folder_, ec);
}

absl::StatusOr<std::string> PostgresServer::NewDatabase(
    const std::string& name) {
  const std::string admin =
      StrCat("postgresql://webnnm@127.0.0.1:", port_, "/postgres");
  absl::StatusOr<std::unique_ptr<pg::Connection>> c =
      pg::Connection::Open(admin);
  if (!c.ok()) return c.status();
  if (absl::Status s = (*c)->Script(StrCat("DROP DATABASE IF EXISTS ", name));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = (*c)->Script(StrCat("CREATE DATABASE ", name));
      !s.ok()) {
    return s;
  }
  return StrCat("postgresql://webnnm@127.0.0.1:", port_, "/", name);
}

}  // namespace webnnm::server::testing
