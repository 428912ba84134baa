#include "engine/model/prelude.h"

#include <set>
#include <string>

namespace webnnm::model {

std::string_view PreludeText() {
  return R"(# The prelude: templates every model may use without defining them.
# A model's own block of the same name replaces one of these.

# A fully connected layer: dense(shape=[10], activation=softmax).
dense:layers
    matmul(w),
    add(b),
    activation();

# A 2-D convolution with a bias: conv(shape={channels: 8, height: 26,
# width: 26}, activation=relu); the filter is inferred from the shapes.
conv:layers
    conv2d(filter),
    add(bias),
    activation();

# 2x2 max pooling with stride 2: pool().
pool:layers
    maxPool2d(windowDimensions={height: 2, width: 2},
              strides={height: 2, width: 2});
)";
}

void AddPrelude(lang::Module& module, const lang::Module& prelude) {
  std::set<std::string> named;
  for (const lang::BlockProperty& p : module.properties) named.insert(p.block);
  for (const lang::BlockProperty& p : prelude.properties) {
    if (named.count(p.block)) continue;
    lang::BlockProperty copy = p;
    copy.prelude = true;
    module.properties.push_back(std::move(copy));
  }
}

}  // namespace webnnm::model
