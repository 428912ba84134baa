// Who a call comes from, as the core sees it: a principal's name, and
// whether it is an admin (who sees and may change everyone's jobs and
// datasets). The RPC edge makes one from a bearer token (rpc/auth.h).
#ifndef WEBNNM_SERVER_CORE_PRINCIPAL_H_
#define WEBNNM_SERVER_CORE_PRINCIPAL_H_

#include <string>

namespace webnnm::server {

struct Principal {
  std::string name;
  bool admin = false;
  // The owner filter for the store: empty (everything) for an admin.
  std::string Filter() const { return admin ? std::string() : name; }
  bool Owns(const std::string& owner) const { return admin || owner == name; }
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_PRINCIPAL_H_
