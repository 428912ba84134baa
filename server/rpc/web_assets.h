// The browser front end's files (client/web/dist), embedded in webnnmd at
// build time so that --http-listen serves the whole front end with no other
// file or flag.
#ifndef WEBNNM_SERVER_RPC_WEB_ASSETS_H_
#define WEBNNM_SERVER_RPC_WEB_ASSETS_H_

#include <cstddef>

namespace webnnm::server {

struct WebAsset {
  const char* path;  // "/index.html"
  const char* content_type;
  const unsigned char* data;
  size_t size;
};

extern const WebAsset kWebAssets[];
extern const size_t kWebAssetCount;

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_WEB_ASSETS_H_
