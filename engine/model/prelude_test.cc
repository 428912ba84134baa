// The prelude (prelude.h): templates every model may use without writing
// them; a model's own block of the same name wins; unused ones are silent;
// diagnostics inside a prelude template point into the prelude.
#include "engine/model/prelude.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"

namespace webnnm {
namespace {

using ::testing::HasSubstr;

TEST(Prelude, AModelUsesDenseWithoutDefiningIt) {
  const CheckResult r = CheckModel("iris.wnm", R"(model:name iris;
model:input shape=[4];
model:output shape=[3];
model:layers
    dense(shapes=[[8], [8]], activation=relu),
    dense(shape=[3], activation=softmax);
)");
  ASSERT_TRUE(r.ok) << r.rendered;
  ASSERT_TRUE(r.summary);
  // Three layers of weights and biases: 4*8+8 + 8*8+8 + 8*3+3.
  EXPECT_EQ(r.summary->parameter_count, 40 + 72 + 27);
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;  // conv, pool unused: silent
}

TEST(Prelude, TheModelsOwnTemplateWins) {
  const CheckResult r = CheckModel("own.wnm", R"(model:input shape=[4];
model:output shape=[3];
model:layers
    dense(shape=[3], activation=softmax);
dense:layers
    matmul(w),
    activation();
)");
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(r.summary->parameter_count, 12);  // no bias: the model's dense
}

TEST(Prelude, ConvAndPoolFromThePrelude) {
  const CheckResult r = CheckModel("cnn.wnm", R"(model:name cnn;
model:input shape={channels: 1, height: 28, width: 28};
model:output shape=[10];
model:layers
    conv(shape={channels: 8, height: 26, width: 26}, activation=relu),
    pool(),
    reshape(newShape=[1352]),
    dense(shape=[10], activation=softmax);
)");
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(r.summary->parameter_count, 8 * 9 + 8 + 1352 * 10 + 10);
}

TEST(Prelude, AnErrorInsideItsTemplateNamesItsUse) {
  // pool() on a vector: maxPool2d, inside the prelude's template, fails; the
  // error says which use of the template it came from.
  const CheckResult r = CheckModel("bad.wnm", R"(model:input shape=[4];
model:output shape=[4];
model:layers
    pool();
)");
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(r.rendered, HasSubstr("maxPool2d"));
  EXPECT_THAT(r.rendered, HasSubstr("in block 'pool' used at line 4"));
  for (const LocatedDiagnostic& d : r.diagnostics) {
    // Located in the model (lines 1-4) or in the prelude, never past both.
    if (d.file == "bad.wnm") EXPECT_LE(d.line, 5);
    else EXPECT_EQ(d.file, model::kPreludeName);
  }
}

TEST(Prelude, ModelLinesStayTheModels) {
  // An error in the model's own text is located in the model, line 4.
  const CheckResult r = CheckModel("typo.wnm", R"(model:input shape=[4];
model:output shape=[3];
model:layers
    dense(shape=[3], activation=nosuch);
)");
  ASSERT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].file, "typo.wnm");
  EXPECT_EQ(r.diagnostics[0].line, 4);
}

}  // namespace
}  // namespace webnnm
