// AttrBinder: turns one layer's written options into IR attributes
// (attr_binding.h), split across attr_binding.cc (scalars, conversion by
// kind, defaults), attr_axes.cc (named axes) and attr_shapes.cc (shapes,
// spatial options, padding, per-dimension lists). Internal to engine/dag.
#ifndef WEBNNM_ENGINE_DAG_ATTR_BINDER_H_
#define WEBNNM_ENGINE_DAG_ATTR_BINDER_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/dag/attr_binding.h"

namespace webnnm::dag {

using ir::AttrKind;
using lang::Value;

// "{batch, h:4, w:5}": a type's layout for messages.
std::string Layout(const ir::TensorType& t);

class AttrBinder {
 public:
  AttrBinder(const model::Layer& layer, const ir::TensorType& input,
             Diagnostics& diagnostics)
      : layer_(layer),
        op_(*layer.op),
        input_(input),
        diagnostics_(diagnostics) {}

  std::optional<BoundAttrs> Run();

 private:
  bool Fail(SourceRange range, std::string message);

  // ---- scalars -------------------------------------------------------------

  std::optional<int64_t> Integer(const Value& v, const std::string& what);

  std::optional<double> Number(const Value& v, const std::string& what);

  static std::string Describe(const Value& v);

  std::optional<std::string> Choice(const Value& v, const ir::AttrSpec& spec,
                                    const std::string& what);

  // A recurrent layer's gate layout as the specification writes it, a list
  // of gate names (lstm [input, output, forget, cell], gru [update, reset,
  // gate]; WebNN's letters too), as WebNN's string (iofg, zrn).
  std::optional<std::string> GateLayout(const Value& v,
                                        const ir::AttrSpec& spec,
                                        const std::string& what);

  // ---- axes ----------------------------------------------------------------

  // A dimension name or a feature index, as a runtime axis.
  std::optional<int64_t> Axis(const Value& v, bool allow_symbolic,
                              const std::string& what);

  std::optional<std::vector<int64_t>> Axes(const Value& v, bool allow_symbolic,
                                           const std::string& what);

  std::optional<std::vector<int64_t>> Permutation(const Value& v,
                                                  const std::string& what);

  // ---- lists and maps of sizes ----------------------------------------------

  std::optional<std::vector<int64_t>> Ints(const Value& v,
                                           const std::string& what);

  // [h, w] or {height: h, width: w} (or the input's names for its spatial
  // dimensions, in any order).
  std::optional<std::vector<int64_t>> Spatial(const Value& v,
                                              const std::string& what);

  // 0 for the height, 1 for the width.
  int SpatialIndex(const std::string& key);

  bool IsNhwc() const;

  std::string DefaultLayout() const;

  // [top, bottom, left, right] or {height: p, width: q} (symmetric), a map
  // value may also be [begin, end].
  std::optional<std::vector<int64_t>> Padding(const Value& v,
                                              const std::string& what);

  // One integer per feature dimension ([..] or {name: n}), grown to the full
  // rank: batch and sequence get `symbolic_fill`, unlisted ones `fill`.
  std::optional<std::vector<int64_t>> FeatureInts(const Value& v,
                                                  const std::string& attr,
                                                  const std::string& what);

  // The symbolic dimensions of the input, which must come first.
  std::optional<std::vector<int64_t>> SymbolicPrefix(SourceRange range,
                                                     const std::string& what);

  // reshape's newShape: [sizes] or {name: size, ...}; batch and sequence
  // are kept in front. A bare name keeps that input dimension's size.
  std::optional<std::vector<int64_t>> NewShape(const model::Option& option);

  // expand's newShape. With a map, the input's dimensions are matched by
  // name; when the map lists them in another order, or puts new dimensions
  // between them, the input is transposed and reshaped first.
  void BindExpandShape(const model::Option& option);

  // resample2d newShape={height: 64, width: 64}: the sizes of two adjacent
  // dimensions, as WebNN's sizes and axes.
  void BindResampleShape(const model::Option& option);

  // Pooling's paddingBeginning / paddingEnding ({height, width} or [h, w],
  // the specification's spelling): the halves of WebNN's padding
  // [top, bottom, left, right]; refused beside padding=.
  void BindPoolPadding(const model::Option& option);

  // ---- conversion by kind
  // ----------------------------------------------------

  std::optional<ir::AttrValue> Convert(const model::Option& option,
                                       const ir::AttrSpec& spec);

  // ---- defaults
  // --------------------------------------------------------------

  void ApplyDefaults();

  const model::Layer& layer_;
  const ir::OpDef& op_;
  const ir::TensorType& input_;
  Diagnostics& diagnostics_;
  BoundAttrs out_;
  bool ok_ = true;
};

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_ATTR_BINDER_H_
