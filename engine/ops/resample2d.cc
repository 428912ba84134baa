// resample2d: resizes two dimensions (`axes`) by nearest-neighbour or
// linear interpolation.
// Operand: input (float32, float16, int8, uint8; rank 4). Options: mode
// (nearest-neighbor | linear, default nearest-neighbor), scales (two
// positive numbers, default [1, 1]), sizes (two positive integers; when
// given, scales are ignored), axes (two consecutive axes, default [2, 3]).
// The model language writes newShape={height: 64, width: 64}.
// Result: the input's type with the two dimensions resized
// (floor(size * scale) without sizes).
#include <algorithm>
#include <cmath>

#include <cmath>

#include "absl/strings/str_join.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status Resample2dGradient(GradientBuilder& g) {
  // Resampling is linear and acts on each resized axis separately: the
  // gradient applies each axis's interpolation matrix transposed, with the
  // kernel's coordinates (half-pixel centres, clamped; nearest rounds
  // ties down).
  const std::vector<int64_t> in = g.shape(g.x(0));
  const std::vector<int64_t> out = g.shape(g.y());
  bool linear = g.attrs().GetString("mode", "nearest-neighbor") == "linear";
  std::vector<int64_t> axes = g.attrs().GetInts("axes", {2, 3});
  DType dtype = g.type(g.x(0)).dtype;
  ValueId grad = g.dy();
  for (int64_t axis : axes) {
    int64_t n_in = in[axis], n_out = out[axis];
    std::vector<double> m(n_out * n_in, 0.0);
    for (int64_t o = 0; o < n_out; ++o) {
      double c = static_cast<double>(2 * o + 1) * static_cast<double>(n_in) /
                     (2.0 * static_cast<double>(n_out)) -
                 0.5;
      c = std::clamp(c, 0.0, static_cast<double>(n_in - 1));
      if (linear) {
        int64_t lo = std::clamp<int64_t>(static_cast<int64_t>(std::floor(c)), 0,
                                         n_in - 1);
        int64_t hi = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(c)), 0,
                                         n_in - 1);
        double t = c - static_cast<double>(lo);
        m[o * n_in + lo] += 1.0 - t;
        m[o * n_in + hi] += t;
      } else {
        int64_t i = std::clamp<int64_t>(
            static_cast<int64_t>(std::ceil(c - 0.5)), 0, n_in - 1);
        m[o * n_in + i] = 1.0;
      }
    }
    ASSIGN_OR_RETURN(ValueId matrix, g.ConstantTensor({n_out, n_in}, dtype, m));
    ASSIGN_OR_RETURN(grad, ApplyTransposedAlongAxis(
                               g, grad, static_cast<int>(axis), matrix));
  }
  return g.Set(0, grad);
}

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
      .aliases = {"resample2D"},
      .gradient = Resample2dGradient};
  return def;
}

}  // namespace webnnm::ops
