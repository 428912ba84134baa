#include "server/core/dataset_source.h"

#include <filesystem>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::server {

absl::StatusOr<StoredData> FindStoredData(Store& store,
                                          const std::string& principal,
                                          const DataSpec& spec,
                                          int64_t max_bytes) {
  if (spec.dataset_id.empty()) {
    return absl::InvalidArgumentError("no dataset given (data.dataset_id)");
  }
  ASSIGN_OR_RETURN(std::optional<Dataset> dataset,
                   store.GetDataset(principal, spec.dataset_id));
  if (!dataset) {
    return absl::NotFoundError(StrCat("no dataset ", spec.dataset_id));
  }
  absl::StatusOr<std::string> content = store.DatasetContent(dataset->sha256);
  if (absl::IsNotFound(content.status())) {
    return absl::DataLossError(StrCat("the stored dataset ", dataset->id, " (",
                                      dataset->name, ") has lost its content: ",
                                      content.status().message()));
  }
  if (!content.ok()) return content.status();
  const std::filesystem::path folder = *content;
  StoredData data{.source = {.label = spec.label,
                             .no_header = spec.no_header,
                             .resize = spec.resize,
                             .max_bytes = max_bytes,
                             .shown_as = dataset->name},
                  .id = dataset->id,
                  .name = dataset->name};
  if (dataset->format == DatasetFormat::kCsv ||
      dataset->format == DatasetFormat::kNpz ||
      dataset->format == DatasetFormat::kImages) {
    if (dataset->files.size() != 1) {
      return absl::DataLossError(
          StrCat("the stored dataset ", dataset->id, " has no file"));
    }
    data.source.path = (folder / dataset->files[0]).string();
  } else {
    data.source.path = folder.string();
  }
  return data;
}

}  // namespace webnnm::server
