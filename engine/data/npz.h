// NumPy datasets: an .npz archive (stored or deflate-compressed, read with
// libzip) of .npy arrays named after the model's inputs and outputs — an
// output named as an input (a model whose one block is both) reads
// `<name>_target` — with `x` and `y` accepted for a model's only input and
// only output.
//
// ParseNpy() reads one array: format versions 1-3, C order, little-endian
// (or single-byte) float16/32/64, signed and unsigned integers of 8-64
// bits and bool. LoadNpz() makes a Dataset of the arrays: every array's
// first dimension is the samples (the same N for all); an input's array is
// [N, ...] with the input's feature shape, or [N, T, ...] for a sequenced
// input (T steps of its step shape) — with an optional `<name>_lengths`
// (or `x_lengths`) array [N] of each sample's real steps within 1..T for
// ragged sequences, padded to T in the array (the padding is zeroed; the
// lengths go to Dataset::SetLengths and apply to every sequenced input,
// which must all have T steps); a classification output's array is
// [N] (or [N, 1]) of integer or bool labels — classes 0..K-1 for an output
// of K units when every label is one of them, else the sorted distinct
// labels — and a regression output's [N] or [N, units] of numbers. Values
// are kept as float32: an integer beyond 2^24 in magnitude is refused (it
// would not stay exact).
//
// Errors (InvalidArgument, naming the archive and the array): not a zip
// archive or a corrupt one, an array missing (the archive's arrays are
// listed), a malformed or unsupported .npy, shapes that disagree with the
// model or with each other, an array or all of them together larger than
// `max_bytes` decompressed (refused before anything is read: no zip
// bombs), lengths that are no whole numbers within 1..T or that differ
// between two inputs. NotFound for a
// missing file.
#ifndef WEBNNM_ENGINE_DATA_NPZ_H_
#define WEBNNM_ENGINE_DATA_NPZ_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/data/dataset.h"

namespace webnnm::train {

struct NpyArray {
  enum class Kind { kFloat, kSigned, kUnsigned, kBool };
  Kind kind = Kind::kFloat;
  int element_bytes = 4;
  std::vector<int64_t> shape;  // () for a scalar
  std::vector<double> values;  // every element, C order
};

// `name` names the array in errors.
absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes,
                                  const std::string& name);
// The same from the array's header alone (its kind and shape; no values):
// `bytes` may stop after the header.
absl::StatusOr<NpyArray> ParseNpyHeader(std::string_view bytes,
                                        const std::string& name);

// What LoadNpz reads for a model.
struct NpzSpec {
  struct Input {
    std::string name;
    int64_t step_values = 1;  // values per sample, or per step if sequenced
    bool sequenced = false;
  };
  struct Output {
    std::string name;
    bool classification = false;
    int64_t units = 1;  // values per sample, or per step if sequenced
    // A label or values per step: an array [N, T] or [N, T, units] whose T
    // is the sequenced inputs' (a ragged sample's padding is ignored).
    bool sequenced = false;
  };
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  int64_t max_bytes = int64_t{1} << 32;
  // Prediction: an output whose array is missing gets zero targets.
  bool targets_optional = false;
  // Prediction with a model that fills missing values (its snapshot's
  // imputation): the first input's NaNs are kept for it to fill. Every
  // other non-finite value is refused, as always.
  bool keep_missing = false;
};

absl::StatusOr<Dataset> LoadNpz(const std::string& path, const NpzSpec& spec);

// Every array of the archive, parsed, in the archive's order (at most
// `max_bytes` decompressed in all; the same errors as LoadNpz's).
absl::StatusOr<std::vector<std::pair<std::string, NpyArray>>> ReadNpzArrays(
    const std::string& path, int64_t max_bytes = int64_t{1} << 32);

// Every array of the archive with its shape, in the archive's order, from
// each array's header alone (nothing else is inflated).
absl::StatusOr<std::vector<std::pair<std::string, std::vector<int64_t>>>>
NpzShapes(const std::string& path);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_NPZ_H_
