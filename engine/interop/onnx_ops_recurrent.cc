// The recurrent layers as ONNX's LSTM and GRU (onnx_emitters.h): the same
// equations (WebNN's iofg and zrn gate orders are ONNX's iofc and zrh;
// ifgo and rzn are reordered; resetAfter is linear_before_reset), the
// two biases concatenated as ONNX's B, the results in ONNX's order (the
// sequence first). A sequence of symbolic length reads the lengths input
// of the export (OnnxWriter::sequence_lengths) as sequence_lens: padded
// steps keep the state and give zeros, as the daemon's step mask does.
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_emitters.h"

namespace webnnm::interop {
namespace {

// A [directions, G·H, ...] operand with its gates in ONNX's order:
// `order[k]` is the WebNN gate at ONNX's place k (identity: as it is).
std::string Reordered(OnnxWriter& w, const std::string& x, int64_t hidden,
                      const std::vector<int>& order) {
  bool same = true;
  for (size_t k = 0; k < order.size(); ++k)
    same &= order[k] == static_cast<int>(k);
  if (same || x.empty()) return x;
  std::vector<std::string> parts;
  onnx::NodeProto& split = w.Add(
      "Split",
      {x, w.Int64s(std::vector<int64_t>(order.size(), hidden), "split")}, [&] {
        std::vector<std::string> outs;
        for (size_t k = 0; k < order.size(); ++k)
          outs.push_back(w.Fresh("gate"));
        return outs;
      }());
  SetInt(split, "axis", 1);
  for (int k : order) parts.push_back(split.output(k));
  onnx::NodeProto& joined = w.Add("Concat", parts);
  SetInt(joined, "axis", 1);
  return joined.output(0);
}

// ONNX's B: [directions, 2·G·H], the input bias then the recurrent one
// (zeros for an absent one); "" when both are absent.
absl::StatusOr<std::string> Biases(OnnxWriter& w, const ir::Node& node,
                                   int gates, int64_t hidden,
                                   const std::vector<int>& order) {
  if (!w.Has(node, 3) && !w.Has(node, 4)) return std::string();
  const ir::TensorType& x = w.InType(node, 0);
  const int64_t directions = w.InType(node, 1).shape[0];
  std::vector<std::string> both;
  for (size_t slot : {3u, 4u}) {
    if (w.Has(node, slot)) {
      both.push_back(Reordered(w, w.In(node, slot), hidden, order));
      continue;
    }
    ASSIGN_OR_RETURN(
        std::string zeros,
        w.Floats(std::vector<float>(directions * gates * hidden, 0.0f),
                 {directions, gates * hidden}, x.dtype, w.Fresh("zero_bias")));
    both.push_back(zeros);
  }
  onnx::NodeProto& b = w.Add("Concat", both);
  SetInt(b, "axis", 1);
  return b.output(0);
}

absl::StatusOr<std::vector<std::string>> Activations(
    const ir::Node& node, std::vector<std::string> fallback, int directions) {
  std::vector<std::string> names =
      node.attrs.GetStrings("activations", fallback);
  std::vector<std::string> onnx;
  for (int d = 0; d < directions; ++d) {
    for (const std::string& n : names) {
      if (n == "sigmoid") {
        onnx.push_back("Sigmoid");
      } else if (n == "tanh") {
        onnx.push_back("Tanh");
      } else if (n == "relu") {
        onnx.push_back("Relu");
      } else {
        return absl::InvalidArgumentError(
            StrCat("activation '", n, "' has no ONNX form"));
      }
    }
  }
  return onnx;
}

void SetStrings(onnx::NodeProto& node, const char* name,
                const std::vector<std::string>& values) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) a.add_strings(v);
}

// The lengths input when the steps are symbolic, else none.
std::string Lengths(OnnxWriter& w, const ir::Node& node) {
  return ir::IsSymbolic(w.InType(node, 0).shape[0]) ? w.sequence_lengths()
                                                    : std::string();
}

struct Recurrent {
  const char* op;
  int gates;
  std::vector<int> order;  // WebNN's gate at each of ONNX's places
  std::vector<std::string> activations;
};

absl::Status EmitRecurrent(OnnxWriter& w, const ir::Node& node,
                           const Recurrent& r, bool lstm) {
  const int64_t hidden = node.attrs.GetInt("hiddenSize", 0);
  const std::string direction = node.attrs.GetString("direction", "forward");
  const int directions = direction == "both" ? 2 : 1;
  ASSIGN_OR_RETURN(std::vector<std::string> activations,
                   Activations(node, r.activations, directions));
  ASSIGN_OR_RETURN(std::string bias, Biases(w, node, r.gates, hidden, r.order));
  std::vector<std::string> in = {w.In(node, 0),
                                 Reordered(w, w.In(node, 1), hidden, r.order),
                                 Reordered(w, w.In(node, 2), hidden, r.order),
                                 bias,
                                 Lengths(w, node),
                                 w.In(node, lstm ? 6 : 5)};
  if (lstm) {
    in.push_back(w.In(node, 7));
    in.push_back(w.In(node, 5));
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  // WebNN's results: h (c) (sequence); ONNX's: Y, Y_h (Y_c).
  const bool sequence = node.outputs.size() > (lstm ? 2u : 1u);
  std::vector<std::string> out = {sequence ? w.Out(node, lstm ? 2 : 1) : "",
                                  w.Out(node, 0)};
  if (lstm) out.push_back(w.Out(node, 1));
  onnx::NodeProto& n = w.Add(r.op, in, out);
  SetInt(n, "hidden_size", hidden);
  SetString(n, "direction",
            direction == "both"       ? "bidirectional"
            : direction == "backward" ? "reverse"
                                      : "forward");
  SetStrings(n, "activations", activations);
  if (!lstm) {
    SetInt(n, "linear_before_reset",
           node.attrs.GetBool("resetAfter", true) ? 1 : 0);
  }
  return absl::OkStatus();
}

// A cell (one step): ONNX's LSTM or GRU over a sequence of one step, each
// operand with a leading axis of one (the step, or the one direction), the
// results without it. `bias` is the slot of the input bias (the recurrent
// one follows); the states are at 3 (and the cell's at 4).
absl::Status EmitCell(OnnxWriter& w, const ir::Node& node, const Recurrent& r,
                      bool lstm) {
  const int64_t hidden = node.attrs.GetInt("hiddenSize", 0);
  ASSIGN_OR_RETURN(std::vector<std::string> activations,
                   Activations(node, r.activations, 1));
  const auto up = [&](size_t slot) -> std::string {
    if (!w.Has(node, slot)) return "";
    return w.Op("Unsqueeze", {w.In(node, slot), w.Int64s({0}, "axes")});
  };
  const size_t bias = lstm ? 5 : 4;
  std::string b;
  if (w.Has(node, bias) || w.Has(node, bias + 1)) {
    std::vector<std::string> both;
    for (size_t slot : {bias, bias + 1}) {
      if (w.Has(node, slot)) {
        both.push_back(Reordered(w, up(slot), hidden, r.order));
        continue;
      }
      ASSIGN_OR_RETURN(std::string zeros,
                       w.Floats(std::vector<float>(r.gates * hidden, 0.0f),
                                {1, r.gates * hidden}, w.InType(node, 0).dtype,
                                w.Fresh("zero_bias")));
      both.push_back(zeros);
    }
    onnx::NodeProto& joined = w.Add("Concat", both);
    SetInt(joined, "axis", 1);
    b = joined.output(0);
  }
  std::vector<std::string> in = {up(0),
                                 Reordered(w, up(1), hidden, r.order),
                                 Reordered(w, up(2), hidden, r.order),
                                 b,
                                 "",
                                 up(3)};
  if (lstm) {
    in.push_back(up(4));
    in.push_back(up(7));
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  std::vector<std::string> out = {"", w.Fresh("state")};
  if (lstm) out.push_back(w.Fresh("cell"));
  onnx::NodeProto& n = w.Add(r.op, in, out);
  SetInt(n, "hidden_size", hidden);
  SetStrings(n, "activations", activations);
  if (!lstm) {
    SetInt(n, "linear_before_reset",
           node.attrs.GetBool("resetAfter", true) ? 1 : 0);
  }
  for (size_t k = 0; k + 1 < out.size(); ++k) {
    w.Add("Squeeze", {out[k + 1], w.Int64s({0}, "axes")}, {w.Out(node, k)});
  }
  return absl::OkStatus();
}

Recurrent LstmOf(const ir::Node& node) {
  // ONNX: i o f c. WebNN's iofg is that; ifgo puts g third, o last.
  const bool ifgo = node.attrs.GetString("layout", "iofg") == "ifgo";
  return {.op = "LSTM",
          .gates = 4,
          .order = ifgo ? std::vector<int>{0, 3, 1, 2}
                        : std::vector<int>{0, 1, 2, 3},
          .activations = {"sigmoid", "tanh", "tanh"}};
}

Recurrent GruOf(const ir::Node& node) {
  // ONNX: z r h. WebNN's zrn is that; rzn swaps the first two.
  const bool rzn = node.attrs.GetString("layout", "zrn") == "rzn";
  return {.op = "GRU",
          .gates = 3,
          .order = rzn ? std::vector<int>{1, 0, 2} : std::vector<int>{0, 1, 2},
          .activations = {"sigmoid", "tanh"}};
}

}  // namespace

absl::Status EmitLstmCell(OnnxWriter& w, const ir::Node& node) {
  return EmitCell(w, node, LstmOf(node), true);
}

absl::Status EmitGruCell(OnnxWriter& w, const ir::Node& node) {
  return EmitCell(w, node, GruOf(node), false);
}

absl::Status EmitLstm(OnnxWriter& w, const ir::Node& node) {
  return EmitRecurrent(w, node, LstmOf(node), true);
}

absl::Status EmitGru(OnnxWriter& w, const ir::Node& node) {
  return EmitRecurrent(w, node, GruOf(node), false);
}

}  // namespace webnnm::interop
