// From a layer's written options to IR attributes, once the layout of the
// layer's input is known.
//
// Named axes resolve to runtime indices through the input's dimension names;
// integer axes count feature dimensions (0 is the first dimension after
// batch and sequence; negative counts from the end). Lists written for the
// feature dimensions (pad, slice, tile) grow to the full rank. Defaults that
// depend on the layout are filled in (OpDef::attrs' language_default, and
// nchw/nhwc layouts from the names "channels", "height", "width"). Every
// problem is reported at the option that causes it.
#ifndef WEBNNM_ENGINE_DAG_ATTR_BINDING_H_
#define WEBNNM_ENGINE_DAG_ATTR_BINDING_H_

#include <optional>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/ir/attrs.h"
#include "engine/model/model.h"

namespace webnnm::dag {

struct BoundAttrs {
  ir::Attrs attrs;
  // Names of the result's dimensions when an option gives them
  // (reshape/expand newShape={...}).
  std::vector<std::string> result_names;
  // expand with a reordered map: the input is transposed by this
  // permutation, then reshaped to `pre_reshape`, before expanding.
  std::vector<int64_t> pre_permutation;
  std::vector<int64_t> pre_reshape;
};

// `input` is the type of operand 0 (after any casts).
std::optional<BoundAttrs> BindAttrs(const model::Layer& layer,
                                    const ir::TensorType& input,
                                    Diagnostics& diagnostics);

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_ATTR_BINDING_H_
