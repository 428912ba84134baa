#include "backends/vulkan/plan_node.h"

#include <deque>

#include "backends/vulkan/row_split.h"

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

std::optional<ir::DType> Wide(ir::DType t) {
  switch (t) {
    case ir::DType::kFloat16:
      return ir::DType::kFloat32;
    case ir::DType::kInt8:
    case ir::DType::kInt4:
      return ir::DType::kInt32;
    case ir::DType::kUint8:
    case ir::DType::kUint4:
      return ir::DType::kUint32;
    default:
      return std::nullopt;
  }
}

// Casts have their own types, and randomUniform makes float16 itself (a
// float32 rounded up could reach 1). int4/uint4 (one byte each) widen only
// for operations that move values without computing on them, as the CPU
// backend has them.
bool Widens(ir::OpKind op, ir::DType dtype) {
  if (dtype == ir::DType::kInt4 || dtype == ir::DType::kUint4) {
    return MovesBits(op);
  }
  return op != ir::OpKind::kCast && op != ir::OpKind::kRandomUniform;
}

// Whether `node` runs on its type directly (true), widened (false), or not
// at all (nullopt).
std::optional<bool> Direct(const ir::Graph& graph, const ir::Node& node) {
  const ir::OpKind op = node.op->kind;
  if (FindPlanner(op) == nullptr) return std::nullopt;
  const ir::DType dtype = CheckedType(graph, node);
  if (op == ir::OpKind::kCast) {
    if (Supports(op, dtype) &&
        Supports(op, graph.value(node.outputs[0]).type.dtype)) {
      return true;
    }
    return std::nullopt;
  }
  if (Supports(op, dtype)) return true;
  std::optional<ir::DType> wide = Wide(dtype);
  if (Widens(op, dtype) && wide && Supports(op, *wide)) return false;
  return std::nullopt;
}

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

bool RunsOn(ir::OpKind op, ir::DType dtype) {
  if (FindPlanner(op) == nullptr) return false;
  if (Supports(op, dtype)) return true;
  std::optional<ir::DType> wide = Wide(dtype);
  return Widens(op, dtype) && wide && Supports(op, *wide);
}

ir::DType CheckedType(const ir::Graph& graph, const ir::Node& node) {
  const size_t slot = node.op->kind == ir::OpKind::kWhere ? 1 : 0;
  const ir::ValueId first =
      node.operands.size() <= slot ? ir::kNoValue : node.operands[slot];
  return first == ir::kNoValue ? graph.value(node.outputs[0]).type.dtype
                               : graph.value(first).type.dtype;
}

bool CanRun(const ir::Graph& graph, const ir::Node& node, std::string& why) {
  if (Direct(graph, node).has_value()) return true;
  why = StrCat(node.op->name, " on ", ir::DTypeName(CheckedType(graph, node)));
  return false;
}

absl::StatusOr<NodePlan> PlanNode(const ir::Graph& graph, const ir::Node& node,
                                  const std::vector<Range>& range,
                                  uint64_t scratch_base, const OpIO& limits) {
  std::optional<bool> direct = Direct(graph, node);
  if (!direct) {
    return absl::UnimplementedError(
        StrCat("no kernel on ", ir::DTypeName(CheckedType(graph, node))));
  }
  // float16 natively where the device has 16-bit storage and the shader a
  // float16 variant.
  if (!*direct && CheckedType(graph, node) == ir::DType::kFloat16 &&
      limits.float16_storage && HasFloat16Variant(node.op->kind)) {
    direct = true;
  }
  Planner planner = FindPlanner(node.op->kind);
  const ir::DType narrow = CheckedType(graph, node);
  const ir::DType wide = *direct ? narrow : *Wide(narrow);
  NodePlan plan;
  std::deque<ir::TensorType> widened;  // stable addresses for the OpIO
  auto scratch = [&](uint64_t bytes) {
    Range r{scratch_base + plan.scratch_bytes, bytes};
    plan.scratch_bytes = AlignUp(plan.scratch_bytes + bytes, limits.alignment);
    return r;
  };
  auto cast = [&](const ir::TensorType& from, Range from_range,
                  const ir::TensorType& to, Range to_range) {
    OpIO io = limits;
    io.in_types = {&from};
    io.out_types = {&to};
    io.in = {from_range};
    io.out = {to_range};
    return PlanCast(io);
  };
  OpIO io = limits;
  io.narrow_type = narrow;
  std::vector<Dispatch> after;  // the results' casts back
  // Where the planner sees value v: in place, or (widened) in scratch with
  // a cast in before (operands) or back after (results).
  auto place = [&](ir::ValueId v, bool result, const ir::TensorType*& type,
                   Range& where) -> absl::Status {
    const ir::TensorType& own = graph.value(v).type;
    type = &own;
    where = range[v];
    if (*direct || own.dtype != narrow) return absl::OkStatus();
    widened.push_back(own);
    widened.back().dtype = wide;
    type = &widened.back();
    where = scratch(range[v].bytes / ir::RuntimeElementSize(narrow) * 4);
    ASSIGN_OR_RETURN(std::vector<Dispatch> c,
                     result ? cast(*type, where, own, range[v])
                            : cast(own, range[v], *type, where));
    std::vector<Dispatch>& into = result ? after : plan.dispatches;
    for (Dispatch& d : c) into.push_back(std::move(d));
    return absl::OkStatus();
  };
  for (ir::ValueId v : node.operands) {
    io.in_types.push_back(nullptr);
    io.in.push_back(Range{});
    if (v != ir::kNoValue) {
      RETURN_IF_ERROR(place(v, false, io.in_types.back(), io.in.back()));
    }
  }
  for (ir::ValueId v : node.outputs) {
    io.out_types.push_back(nullptr);
    io.out.push_back(Range{});
    RETURN_IF_ERROR(place(v, true, io.out_types.back(), io.out.back()));
  }
  // Tensors past one binding: in chunks of rows where the operation allows.
  bool too_big = false;
  for (const Range& r : io.in) too_big |= r.bytes > io.max_range;
  for (const Range& r : io.out) too_big |= r.bytes > io.max_range;
  std::optional<std::vector<bool>> rows =
      too_big ? RowAligned(io) : std::nullopt;
  ASSIGN_OR_RETURN(std::vector<Dispatch> body,
                   rows ? PlanByRows(io, planner, *rows) : planner(io));
  for (Dispatch& d : body) plan.dispatches.push_back(std::move(d));
  for (Dispatch& d : after) plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace webnnm::backends::vulkan
