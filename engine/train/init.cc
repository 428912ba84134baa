#include "engine/train/init.h"

#include <cmath>

#include "engine/base/philox.h"

namespace webnnm::train {

std::vector<float> InitialValues(const ir::ParameterInfo& info, int64_t count,
                                 uint64_t seed, uint32_t parameter_index) {
  std::vector<float> values(count, 0.0f);
  switch (info.init) {
    case ir::Init::kZeros:
      return values;
    case ir::Init::kOnes:
      values.assign(count, 1.0f);
      return values;
    case ir::Init::kHe:
    case ir::Init::kGlorot:
      break;
  }
  double fan_in = static_cast<double>(std::max<int64_t>(info.fan_in, 1));
  double fan_out = static_cast<double>(std::max<int64_t>(info.fan_out, 1));
  double stddev = info.init == ir::Init::kHe
                      ? std::sqrt(2.0 / fan_in)
                      : std::sqrt(2.0 / (fan_in + fan_out));
  constexpr double kTwoPi = 6.283185307179586;
  for (int64_t i = 0; i < count; i += 4) {
    PhiloxBlock bits = Philox4x32(
        {parameter_index, static_cast<uint32_t>(i / 4),
         static_cast<uint32_t>(static_cast<uint64_t>(i / 4) >> 32), 0x1a17},
        seed);
    for (int pair = 0; pair < 2; ++pair) {
      // u1 in (0, 1], u2 in [0, 1).
      double u1 = 1.0 - UniformFloat(bits[2 * pair]);
      double u2 = UniformFloat(bits[2 * pair + 1]);
      double radius = std::sqrt(-2.0 * std::log(u1));
      double z0 = radius * std::cos(kTwoPi * u2);
      double z1 = radius * std::sin(kTwoPi * u2);
      int64_t k = i + 2 * pair;
      if (k < count) values[k] = static_cast<float>(z0 * stddev);
      if (k + 1 < count) values[k + 1] = static_cast<float>(z1 * stddev);
    }
  }
  return values;
}

Params InitialParameters(const dag::Dag& dag, uint64_t seed,
                         const std::set<std::string>& scaled, double scale) {
  Params params;
  uint32_t index = 0;
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    int64_t count = 1;
    for (int64_t d : dag.graph.value(node.outputs[0]).type.shape) count *= d;
    std::vector<float> values =
        InitialValues(node.parameter, count, seed, index++);
    if (scale != 1.0 && scaled.count(node.name)) {
      for (float& v : values) v = static_cast<float>(v * scale);
    }
    params[node.name] = std::move(values);
  }
  return params;
}

}  // namespace webnnm::train
