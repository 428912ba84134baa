// Reading a dataset for a model: what `webnnmctl train --local`, `test
// --local` and the daemon's jobs share.
//
// A CSV file, an IDX directory or an image folder (image_folder.h: class
// subfolders of PNG and JPEG files, for a model whose one input is an
// image) feeds a model with one input and one output; an .npz archive
// (npz.h) feeds any model, an array per input and output. How labels are
// read follows the model: classes when its loss is a classification loss or
// its output activation is softmax or sigmoid, otherwise regression targets
// (an image folder's are always classes). The split is seeded; an IDX
// directory's test subset is its t10k files (the split's test share is
// ignored).
#ifndef WEBNNM_ENGINE_TRAIN_DATA_SOURCE_H_
#define WEBNNM_ENGINE_TRAIN_DATA_SOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/data/npz.h"

namespace webnnm::train {

struct DataSource {
  // A CSV file, an IDX directory, an image folder (or a .zip of one) or a
  // NumPy .npz file.
  std::string path;
  // The CSV label column; empty: chosen for the model (label_column.h:
  // the last column when it fits the output).
  std::string label;
  bool no_header = false;
  // CSV: the text columns' encoding of a trained model (snapshots); nullopt
  // for a new run, which chooses it from the file.
  std::optional<TextEncoding> text;
  // CSV: missing feature values become NaN (to impute, dataset.h) instead
  // of an error.
  bool keep_missing = false;
  // An image folder: resize images of another size to the model's
  // (bilinearly) rather than refuse them.
  bool resize = false;
  // The most bytes an .npz archive's arrays may hold decompressed, or an
  // image folder's images decoded (0: the default, 4 GiB).
  int64_t max_bytes = 0;
  // How errors name the data instead of `path` (the daemon: the dataset's
  // name, never a path of its own); empty: the path.
  std::string shown_as;
};

// Whether `path` names a NumPy .npz archive (by its extension).
bool IsNpz(const std::string& path);

// What an .npz archive must hold for the model: an array per input (its
// step size, whether sequenced) and per output (classes or units).
NpzSpec NpzSpecFor(const dag::Dag& dag);

inline constexpr char kDefaultSplit[] = "70,15,15";

// "70,15,15" -> {70, 15, 15}; InvalidArgument naming the text otherwise.
absl::StatusOr<std::vector<double>> ParseSplit(const std::string& text);

// The model must have one input and one output (FailedPrecondition
// otherwise, saying how many it has).
absl::Status CheckSingleInputOutput(const dag::Dag& dag);

// Whether the model reads its labels as classes (its loss is a
// classification loss or its output activation softmax or sigmoid) rather
// than as regression targets.
bool ReadsClasses(const dag::Dag& dag);

// What the model's first output asks of a CSV label column (label_column.h:
// its classes, or numbers), for choosing the column when none is named.
LabelNeed LabelNeedFor(const dag::Dag& dag);

// Reads the data (NotFound for a missing path; InvalidArgument with file
// and line for bad data), unsplit. With `source.shown_as`, the errors name
// it where they would name `path` or the folder holding it.
absl::StatusOr<Dataset> ReadDataFor(const dag::Dag& dag,
                                    const DataSource& source);

// Reads the image folder `source.path` (image_folder.h) for the model's
// one input: its layout, channels, height and width, `source.resize` and
// `source.max_bytes`. FailedPrecondition when the model has not one input
// and one output or its input takes no images (saying what an image folder
// feeds); LoadImageFolder's errors otherwise. ReadDataFor calls it for a
// path IsImageFolder() or IsImageArchive() accepts (a .zip: LoadImageArchive);
// predicting can too.
absl::StatusOr<Dataset> ReadImageFolderFor(const dag::Dag& dag,
                                           const DataSource& source);

// Splits `data` read from `source` by `split` percentages, seeded.
absl::Status SplitData(Dataset& data, const DataSource& source,
                       const std::vector<double>& split, uint64_t seed);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_DATA_SOURCE_H_
