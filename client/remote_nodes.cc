// webnnmctl nodes: the live daemons of webnnmd's store (every daemon of a
// cluster, or the one), their capacity and the jobs they run.
#include <iostream>

#include <nlohmann/json.hpp>

#include "client/job_json.h"
#include "client/remote_client.h"
#include "client/terminal.h"

namespace webnnm::client {

using Json = nlohmann::ordered_json;

int Nodes(Client& client, bool json) {
  v1::ListNodesResponse response;
  grpc::Status s = client.stub().ListNodes(client.Context().get(),
                                           v1::ListNodesRequest(), &response);
  if (!s.ok()) return client.Error(s);
  if (json) {
    Json nodes = Json::array();
    for (const v1::Node& n : response.nodes()) {
      Json running = Json::array();
      for (const std::string& id : n.running_job_ids()) running.push_back(id);
      nodes.push_back({{"name", n.name()},
                       {"address", n.address()},
                       {"version", n.version()},
                       {"started", TimeText(n.started())},
                       {"lastSeen", TimeText(n.last_seen())},
                       {"workers", n.workers()},
                       {"busy", n.busy()},
                       {"threads", n.threads()},
                       {"running", running}});
    }
    std::cout << Json{{"cluster", response.cluster()}, {"nodes", nodes}}.dump()
              << "\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "ADDRESS", "BUSY", "WORKERS", "THREADS", "STARTED", "LAST SEEN",
       "RUNNING"}};
  for (const v1::Node& n : response.nodes()) {
    std::string running;
    for (const std::string& id : n.running_job_ids()) {
      running += (running.empty() ? "" : ",") + id;
    }
    rows.push_back({n.name(), n.address(), std::to_string(n.busy()),
                    std::to_string(n.workers()), std::to_string(n.threads()),
                    TimeText(n.started()).substr(0, 19),
                    TimeText(n.last_seen()).substr(0, 19),
                    running.empty() ? "-" : running});
  }
  std::cout << Table(rows);
  return 0;
}

}  // namespace webnnm::client
