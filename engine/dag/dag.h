// The symbolic DAG of a model, and dag::Build, which makes it.
//
// dag::Build takes the instantiated model (model::Build) and produces the
// graph the specification describes: input, output, parameter, constant and
// WebNN operation nodes, with batch and sequence dimensions symbolic and
// every value's data type, shape and dimension names inferred. On the way it
//  - orders the layers by what they use (a reference cycle is an error);
//  - binds named options to the input's layout (attr_binding.h);
//  - picks each operation's compute type with lazy up-casting and inserts
//    the casts (never an implicit down-cast; dataType= on a layer forces a
//    type; float16 inputs of an operation that overflows float16 easily
//    are computed in float32 and cast back, Dag::widened);
//  - infers parameter shapes from the shapes around them, propagating
//    declared shapes backwards through shape-preserving layers (pin.h);
//  - validates every operation with its rule (checked 64-bit arithmetic,
//    ir::Limits);
//  - culls nodes not on an input-to-output path, decomposes high-level
//    operations into WebNN operations, and annotates parameters with their
//    initialisation.
// Every problem becomes a diagnostic at the text that causes it; the Dag is
// returned only when there is no error.
#ifndef WEBNNM_ENGINE_DAG_DAG_H_
#define WEBNNM_ENGINE_DAG_DAG_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"
#include "engine/model/model.h"

namespace webnnm::dag {

// A block's input or output node.
struct Endpoint {
  std::string name;  // the block's name
  ir::NodeId node = -1;
  SourceRange range;
  // Outputs: the block's loss as written (model:loss; empty when the expert
  // system chooses) and its parameters (model:alpha, model:delta,
  // model:gamma).
  std::string loss;
  std::optional<double> alpha, delta, gamma;
};

// What the model-level summary shows for each layer.
struct LayerInfo {
  std::string op;
  std::vector<std::string> names;
  ir::TensorType result;
  SourceRange range;
  std::string section;
};

// A layer computed in float32 although its inputs are float16: its
// operation overflows float16 easily (ir::OverflowsFloat16) and the layer
// gives no dataType=, so its inputs are cast up and its result back to
// float16 (the specification's "cast from float16 to float32 for
// operations like softmax and batchnorm ... unless you explicitly set the
// data types").
struct WidenedLayer {
  std::string op;
  SourceRange range;
  int line = 0;  // 1-based, of the layer
};

struct Dag {
  std::string name;
  ir::Graph graph;
  std::vector<Endpoint> inputs;
  std::vector<Endpoint> outputs;
  std::vector<ir::NodeId> parameters;  // trainable ones first, in name order
  std::vector<LayerInfo> layers;       // model layers that were kept
  // The steps a recurrent layer's `steps=` declares for a sequenced input
  // (0: none): the data's sequences must have as many (sequence.h).
  int64_t declared_steps = 0;
  // Kept layers computed in float32 for float16 inputs, in model order.
  std::vector<WidenedLayer> widened;
};

std::optional<Dag> Build(const model::Model& model, Diagnostics& diagnostics,
                         const ir::Limits& limits = {});

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_DAG_H_
