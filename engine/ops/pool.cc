#include "engine/ops/pool.h"

#include "engine/ops/conv.h"
#include "engine/ops/gradient_rules.h"

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
                // The specification's spelling of padding's two halves; the
                // DAG builder folds them into padding (attr_shapes.cc).
                {.name = "paddingBeginning", .kind = ir::AttrKind::kSpatial},
                {.name = "paddingEnding", .kind = ir::AttrKind::kSpatial},
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

// ---- gradients
// ---------------------------------------------------------------

absl::StatusOr<PoolGradientGeometry> ReadPoolGeometry(
    const ir::GradientBuilder& g) {
  const InferContext& c = g.context();
  ASSIGN_OR_RETURN(ImageAxes in, InputLayoutAxes(c, "layout"));
  ASSIGN_OR_RETURN(Window w, ReadWindow(c));
  PoolGradientGeometry geometry;
  geometry.to_nchw = {0, in.channels, in.height, in.width};
  const std::vector<int64_t>& x = g.shape(g.x(0));
  const std::vector<int64_t>& y = g.shape(g.y());
  std::vector<int64_t> window =
      c.attrs.GetInts("windowDimensions", {x[in.height], x[in.width]});
  for (int i = 0; i < 2; ++i) {
    int axis = i == 0 ? in.height : in.width;
    geometry.input[i] = x[axis];
    geometry.output[i] = y[axis];
    geometry.window[i] = window[i];
    geometry.strides[i] = w.strides[i];
    geometry.dilations[i] = w.dilations[i];
    geometry.pad_begin[i] = w.padding[2 * i];
  }
  return geometry;
}

namespace {

// The input index read by tap k of output o along dimension i, or -1 when
// it falls in the padding.
int64_t TapIndex(const PoolGradientGeometry& geometry, int i, int64_t o,
                 int64_t k) {
  int64_t index = o * geometry.strides[i] - geometry.pad_begin[i] +
                  k * geometry.dilations[i];
  return index >= 0 && index < geometry.input[i] ? index : -1;
}

// [output, input] matrix of dimension i: the taps of each output (all of
// them, or only tap `only`), weighted by 1 / (number of taps) if `average`.
std::vector<double> TapMatrix(const PoolGradientGeometry& geometry, int i,
                              int64_t only, bool average) {
  int64_t out = geometry.output[i], in = geometry.input[i];
  std::vector<double> m(out * in, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t taps = 0;
    for (int64_t k = 0; k < geometry.window[i]; ++k) {
      taps += TapIndex(geometry, i, o, k) >= 0;
    }
    for (int64_t k = 0; k < geometry.window[i]; ++k) {
      if (only >= 0 && k != only) continue;
      int64_t index = TapIndex(geometry, i, o, k);
      if (index >= 0) m[o * in + index] = average ? 1.0 / taps : 1.0;
    }
  }
  return m;
}

std::vector<double> Transposed(const std::vector<double>& m, int64_t rows,
                               int64_t cols) {
  std::vector<double> t(m.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c];
  }
  return t;
}

// The taps that hold the maximum and no earlier tap did (`taken`, updated:
// the outputs some tap already took), so ties go to the first tap, as in
// the forward pass.
absl::StatusOr<ir::ValueId> FirstHit(ir::GradientBuilder& g, ir::ValueId hit,
                                     ir::ValueId& taken) {
  if (taken == ir::kNoValue) {
    taken = hit;
    return hit;
  }
  ASSIGN_OR_RETURN(ir::ValueId free, g.Op(ir::OpKind::kLogicalNot, {taken}));
  ASSIGN_OR_RETURN(hit, g.Op(ir::OpKind::kLogicalAnd, {hit, free}));
  ASSIGN_OR_RETURN(taken, g.Op(ir::OpKind::kLogicalOr, {taken, hit}));
  return hit;
}

// Whether the windows tile the input's top-left corner: no leading padding
// or dilation, strides equal to the window, and no window reaching past
// the input (the rows and columns after the last window, as in 11 -> 5
// with 2x2 windows, get no gradient).
bool TilesTheInput(const PoolGradientGeometry& geometry) {
  for (int i = 0; i < 2; ++i) {
    if (geometry.dilations[i] != 1 || geometry.pad_begin[i] != 0 ||
        geometry.strides[i] != geometry.window[i] ||
        geometry.input[i] < geometry.output[i] * geometry.window[i]) {
      return false;
    }
  }
  return true;
}

// MaxPoolSpread for windows that tile the input: the tiled corner of x is
// regrouped as [taps, N, C, OH, OW] (a reshape and one transpose), argMax
// finds each window's first tap equal to its maximum, that tap takes dy
// (an equality with the taps' indices and a where), and the shares go back
// the same way; zeros pad the rows and columns no window reached. Seven
// passes over the input whatever the window, where a slice, a comparison
// and a selection per tap and two concatenations took a pass each.
absl::StatusOr<ir::ValueId> MaxPoolSpreadTiled(
    ir::GradientBuilder& g, const PoolGradientGeometry& geometry, ir::ValueId x,
    ir::ValueId y, ir::ValueId dy) {
  (void)y;  // the windows' maxima are found again, with their taps
  if (g.type(x).dtype == DType::kFloat32) {
    // One kernel, the same rule and bits (max_pool2d_gradient.cc).
    ir::Attrs window;
    window.Set("windowDimensions",
               std::vector<int64_t>{geometry.window[0], geometry.window[1]});
    return g.Op(ir::OpKind::kMaxPool2dGradient, {x, dy}, window);
  }
  const std::vector<int64_t> shape = g.shape(x);  // [N, C, H, W]
  const int64_t n = shape[0], c = shape[1];
  const int64_t oh = geometry.output[0], ow = geometry.output[1];
  const int64_t kh = geometry.window[0], kw = geometry.window[1];
  const int64_t rest_h = shape[2] - oh * kh, rest_w = shape[3] - ow * kw;
  ir::ValueId corner = x;
  if (rest_h != 0 || rest_w != 0) {
    ASSIGN_OR_RETURN(corner,
                     g.Slice(x, {0, 0, 0, 0}, {n, c, oh * kh, ow * kw}));
  }
  // Taps first, so that every operation below runs along long rows.
  const int64_t k = kh * kw;
  ASSIGN_OR_RETURN(ir::ValueId windows,
                   g.Reshape(corner, {n, c, oh, kh, ow, kw}));
  ASSIGN_OR_RETURN(windows, g.Transpose(windows, {3, 5, 0, 1, 2, 4}));
  ASSIGN_OR_RETURN(windows, g.Reshape(windows, {k, n, c, oh, ow}));
  ir::Attrs along_taps;
  along_taps.Set("axis", int64_t{0});
  along_taps.Set("keepDimensions", true);
  ASSIGN_OR_RETURN(ir::ValueId first,
                   g.Op(ir::OpKind::kArgMax, {windows}, along_taps));
  std::vector<int64_t> tap_ids(k);
  for (int64_t t = 0; t < k; ++t) tap_ids[t] = t;
  ASSIGN_OR_RETURN(ir::ValueId taps, g.IndexTensor({k, 1, 1, 1, 1}, tap_ids));
  ASSIGN_OR_RETURN(ir::ValueId hit, g.Op(ir::OpKind::kEqual, {first, taps}));
  ASSIGN_OR_RETURN(ir::ValueId dy_each, g.Reshape(dy, {1, n, c, oh, ow}));
  ASSIGN_OR_RETURN(ir::ValueId share, g.WhereOrZero(hit, dy_each));
  ASSIGN_OR_RETURN(share, g.Reshape(share, {kh, kw, n, c, oh, ow}));
  ASSIGN_OR_RETURN(share, g.Transpose(share, {2, 3, 4, 0, 5, 1}));
  ASSIGN_OR_RETURN(ir::ValueId dx, g.Reshape(share, {n, c, oh * kh, ow * kw}));
  if (rest_h == 0 && rest_w == 0) return dx;
  ir::Attrs pad;
  pad.Set("beginningPadding", std::vector<int64_t>{0, 0, 0, 0});
  pad.Set("endingPadding", std::vector<int64_t>{0, 0, rest_h, rest_w});
  return g.Op(ir::OpKind::kPad, {dx}, pad);
}

}  // namespace

absl::StatusOr<ir::ValueId> SpreadPooled(ir::GradientBuilder& g,
                                         const PoolGradientGeometry& geometry,
                                         ir::ValueId v, bool average) {
  DType dtype = g.type(v).dtype;
  ir::ValueId r = v;
  for (int i = 1; i >= 0; --i) {
    ASSIGN_OR_RETURN(
        ir::ValueId matrix,
        g.ConstantTensor({geometry.output[i], geometry.input[i]}, dtype,
                         TapMatrix(geometry, i, -1, average)));
    ASSIGN_OR_RETURN(r, ApplyTransposedAlongAxis(g, r, 2 + i, matrix));
  }
  return r;
}

absl::StatusOr<ir::ValueId> MaxPoolSpread(ir::GradientBuilder& g,
                                          const PoolGradientGeometry& geometry,
                                          ir::ValueId x, ir::ValueId y,
                                          ir::ValueId dy) {
  if (TilesTheInput(geometry)) return MaxPoolSpreadTiled(g, geometry, x, y, dy);
  DType dtype = g.type(x).dtype;
  ir::ValueId taken = ir::kNoValue, dx = ir::kNoValue;
  for (int64_t kh = 0; kh < geometry.window[0]; ++kh) {
    for (int64_t kw = 0; kw < geometry.window[1]; ++kw) {
      std::array<int64_t, 2> tap = {kh, kw};
      std::array<ir::ValueId, 2> select, select_t;
      std::array<std::vector<double>, 2> valid;
      for (int i = 0; i < 2; ++i) {
        std::vector<double> m = TapMatrix(geometry, i, tap[i], false);
        int64_t out = geometry.output[i], in = geometry.input[i];
        valid[i].assign(out, 0.0);
        for (int64_t o = 0; o < out; ++o) {
          valid[i][o] = TapIndex(geometry, i, o, tap[i]) >= 0 ? 1.0 : 0.0;
        }
        ASSIGN_OR_RETURN(select[i], g.ConstantTensor({out, in}, dtype, m));
        ASSIGN_OR_RETURN(select_t[i], g.ConstantTensor({in, out}, dtype,
                                                       Transposed(m, out, in)));
      }
      // The input seen through this tap: [N, C, OH, OW] (0 in padding).
      ir::ValueId seen = x;
      for (int i = 1; i >= 0; --i) {
        ASSIGN_OR_RETURN(seen,
                         ApplyTransposedAlongAxis(g, seen, 2 + i, select_t[i]));
      }
      std::vector<double> inside(geometry.output[0] * geometry.output[1]);
      for (int64_t a = 0; a < geometry.output[0]; ++a) {
        for (int64_t b = 0; b < geometry.output[1]; ++b) {
          inside[a * geometry.output[1] + b] = valid[0][a] * valid[1][b];
        }
      }
      ASSIGN_OR_RETURN(
          ir::ValueId inside_values,
          g.ConstantTensor({geometry.output[0], geometry.output[1]}, dtype,
                           inside));
      ASSIGN_OR_RETURN(
          ir::ValueId in_window,
          CompareScalar(g, ir::OpKind::kGreater, inside_values, 0.5));
      ASSIGN_OR_RETURN(ir::ValueId equal, g.Op(ir::OpKind::kEqual, {seen, y}));
      ASSIGN_OR_RETURN(ir::ValueId candidate,
                       g.Op(ir::OpKind::kLogicalAnd, {equal, in_window}));
      ASSIGN_OR_RETURN(ir::ValueId hit, FirstHit(g, candidate, taken));
      ASSIGN_OR_RETURN(ir::ValueId share, g.WhereOrZero(hit, dy));
      ir::ValueId back = share;
      for (int i = 1; i >= 0; --i) {
        ASSIGN_OR_RETURN(back,
                         ApplyTransposedAlongAxis(g, back, 2 + i, select[i]));
      }
      if (dx == ir::kNoValue) {
        dx = back;
      } else {
        ASSIGN_OR_RETURN(dx, g.Add(dx, back));
      }
    }
  }
  return dx;
}

}  // namespace webnnm::ops
