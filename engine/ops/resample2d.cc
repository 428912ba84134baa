// resample2d: resizes two dimensions (`axes`) by nearest-neighbour or
// linear interpolation.
// Operand: input (float32, float16, int8, uint8; rank 4). Options: mode
// (nearest-neighbor | linear, default nearest-neighbor), scales (two
// positive numbers, default [1, 1]), sizes (two positive integers; when
// given, scales are ignored), axes (two consecutive axes, default [2, 3]).
// The model language writes newShape={height: 64, width: 64}.
// Result: the input's type with the two dimensions resized
// (floor(size * scale) without sizes).
#include <cmath>

#include "absl/strings/str_join.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferResample2d(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 4);
  if (!status.ok()) return status;
  absl::StatusOr<std::string> mode = EnumAttr(c, "mode", "nearest-neighbor");
  if (!mode.ok()) return mode.status();
  std::vector<int64_t> axes = c.attrs.GetInts("axes", {2, 3});
  if (axes.size() != 2 || axes[0] < 0 || axes[0] > 3 || axes[1] < 0 ||
      axes[1] > 3 || axes[0] == axes[1]) {
    return AttrError("axes", StrCat("resample2d axes must be two different "
                                    "axes of the 4-D input, not [",
                                    absl::StrJoin(axes, ", "), "]"));
  }
  TensorType out = SameShape(c, 0, c.operand(0).dtype);
  if (c.attrs.Has("sizes")) {
    absl::StatusOr<std::vector<int64_t>> sizes =
        IntListAttr(c, "sizes", {}, 2, 1);
    if (!sizes.ok()) return sizes.status();
    for (int i = 0; i < 2; ++i) out.shape[axes[i]] = (*sizes)[i];
  } else {
    std::vector<double> scales = c.attrs.GetFloats("scales", {1.0, 1.0});
    if (scales.size() != 2) {
      return AttrError("scales", "resample2d scales must have two values");
    }
    for (int i = 0; i < 2; ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i])) {
        return AttrError("scales", StrCat("resample2d scales must be "
                                          "positive, not ",
                                          scales[i]));
      }
      absl::StatusOr<int64_t> d =
          ConcreteDim(c, 0, static_cast<int>(axes[i]), "resample2d");
      if (!d.ok()) return d.status();
      double size = std::floor(static_cast<double>(*d) * scales[i]);
      if (size < 1 || size > static_cast<double>(c.limits.max_dimension)) {
        return AttrError("scales", StrCat("resample2d would make axis ",
                                          axes[i], " of size ", size));
      }
      out.shape[axes[i]] = static_cast<int64_t>(size);
    }
  }
  for (int64_t axis : axes) {
    if (ir::IsSymbolic(c.operand(0).shape[axis])) {
      return AttrError("axes",
                       "resample2d cannot resize the batch or "
                       "sequence dimension");
    }
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& Resample2dOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kResample2d,
      .name = "resample2d",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input",
                    .types = {DType::kFloat32, DType::kFloat16, DType::kInt8,
                              DType::kUint8}}},
      .attrs = {{.name = "mode",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"nearest-neighbor", "linear"}},
                {.name = "scales", .kind = ir::AttrKind::kFloats},
                {.name = "sizes", .kind = ir::AttrKind::kInts},
                {.name = "axes", .kind = ir::AttrKind::kInts},
                // The model language's newShape={height: 64, width: 64};
                // the DAG builder turns it into sizes and axes.
                {.name = "newShape", .kind = ir::AttrKind::kShape}},
      .infer = InferResample2d,
      .aliases = {"resample2D"}};
  return def;
}

}  // namespace webnnm::ops
