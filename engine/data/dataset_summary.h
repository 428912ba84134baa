// What a dataset file holds, read without a model: the samples, the
// columns and a CSV's header row — what `dataset list` shows beside a
// dataset's size. Nothing is decoded beyond what the counts need: a CSV is
// streamed (its records counted, its first one parsed), an .npz's arrays
// are read for their headers, IDX files for theirs, images are counted
// from the archive's entries. Errors name the file (InvalidArgument for a
// malformed one, NotFound for a missing one); the loaders check the rest
// when a job reads the data.
#ifndef WEBNNM_ENGINE_DATA_DATASET_SUMMARY_H_
#define WEBNNM_ENGINE_DATA_DATASET_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

struct DatasetSummary {
  int64_t rows = 0;     // samples
  int64_t columns = 0;  // see below, per format
  // A CSV's header row (the first row when any of its fields is not a
  // number, as the loaders take it unless --no-header); empty otherwise.
  std::vector<std::string> header;
};

// rows: the records less the header (blank lines do not count); columns:
// the fields of the first record.
absl::StatusOr<DatasetSummary> SummarizeCsv(const std::string& path);
// An IDX folder: rows, the images of the training and test files; columns,
// the values of an image (its rows × columns).
absl::StatusOr<DatasetSummary> SummarizeIdx(const std::string& folder);
// rows: the first dimension of the arrays (the largest, when they differ);
// columns: the arrays.
absl::StatusOr<DatasetSummary> SummarizeNpz(const std::string& path);
// A .zip of class folders: rows, the images; columns, the classes.
absl::StatusOr<DatasetSummary> SummarizeImageArchive(const std::string& path);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_DATASET_SUMMARY_H_
