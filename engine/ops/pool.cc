#include "engine/ops/pool.h"

#include "engine/ops/conv.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferPool(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 4);
  if (!status.ok()) return status;
  absl::StatusOr<ImageAxes> in = InputLayoutAxes(c, "layout");
  if (!in.ok()) return in.status();
  absl::StatusOr<Window> w = ReadWindow(c);
  if (!w.ok()) return w.status();
  const TensorType& input = c.operand(0);
  for (int axis : {in->height, in->width}) {
    absl::StatusOr<int64_t> d = ConcreteDim(c, 0, axis, c.op.name);
    if (!d.ok()) return d.status();
  }
  absl::StatusOr<std::vector<int64_t>> window =
      IntListAttr(c, "windowDimensions",
                  {input.shape[in->height], input.shape[in->width]}, 2, 1);
  if (!window.ok()) return window.status();
  std::string rounding = c.attrs.GetString(
      "outputShapeRounding", c.attrs.GetString("roundingType", "floor"));
  if (rounding != "floor" && rounding != "ceil") {
    return AttrError("outputShapeRounding",
                     StrCat(c.op.name,
                            " outputShapeRounding must be floor or "
                            "ceil, not '",
                            rounding, "'"));
  }
  std::vector<int64_t> sizes = c.attrs.GetInts("outputSizes", {});
  if (!sizes.empty() && sizes.size() != 2) {
    return AttrError("outputSizes",
                     StrCat(c.op.name, " outputSizes must have two values"));
  }
  TensorType out = SameShape(c, 0, input.dtype);
  bool all_floor = true, all_ceil = true;  // what outputSizes matched
  for (int i = 0; i < 2; ++i) {
    int axis = i == 0 ? in->height : in->width;
    absl::StatusOr<int64_t> floor_size =
        WindowOutputSize(input.shape[axis], (*window)[i], w->padding[2 * i],
                         w->padding[2 * i + 1], w->strides[i], w->dilations[i],
                         false, c.op.name);
    if (!floor_size.ok())
      return AttrError("windowDimensions", floor_size.status());
    absl::StatusOr<int64_t> ceil_size = WindowOutputSize(
        input.shape[axis], (*window)[i], w->padding[2 * i],
        w->padding[2 * i + 1], w->strides[i], w->dilations[i], true, c.op.name);
    if (!ceil_size.ok()) return ceil_size.status();
    if (!sizes.empty()) {
      if (sizes[i] != *floor_size && sizes[i] != *ceil_size) {
        return AttrError(
            "outputSizes",
            StrCat(c.op.name, " outputSizes ", sizes[i], " must be ",
                   *floor_size,
                   *ceil_size != *floor_size ? StrCat(" or ", *ceil_size)
                                             : std::string()));
      }
      all_floor &= sizes[i] == *floor_size;
      all_ceil &= sizes[i] == *ceil_size;
      out.shape[axis] = sizes[i];
    } else {
      out.shape[axis] = rounding == "ceil" ? *ceil_size : *floor_size;
    }
  }
  if (!all_floor && !all_ceil) {
    return AttrError("outputSizes",
                     StrCat(c.op.name,
                            " outputSizes must round both "
                            "dimensions the same way (both floor "
                            "or both ceil)"));
  }
  out.channel_axis = in->channels;
  return Result(c, std::move(out));
}

}  // namespace

ir::OpDef PoolOp(ir::OpKind kind, const char* name, DTypeSet types) {
  return ir::OpDef{
      .kind = kind,
      .name = name,
      .category = ir::OpCategory::kPooling,
      .operands = {{.name = "input", .types = types}},
      .attrs = {{.name = "windowDimensions", .kind = ir::AttrKind::kSpatial},
                {.name = "padding", .kind = ir::AttrKind::kPadding},
                {.name = "strides", .kind = ir::AttrKind::kSpatial},
                {.name = "dilations", .kind = ir::AttrKind::kSpatial},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"nchw", "nhwc"}},
                {.name = "outputShapeRounding",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"floor", "ceil"}},
                {.name = "roundingType",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"floor", "ceil"}},
                {.name = "outputSizes", .kind = ir::AttrKind::kSpatial}},
      .infer = InferPool};
}

}  // namespace webnnm::ops
