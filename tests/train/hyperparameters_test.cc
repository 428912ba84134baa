// The hyperparameter table: its message equals it field for field, the one
// validation refuses what it must with the messages the CLI and the daemon
// show, values round-trip through text and the message, and the table in
// docs/training.md is the one the table makes.
#include "engine/train/hyperparameters.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/train/hyperparameters_proto.h"

namespace webnnm::train {
namespace {

using google::protobuf::FieldDescriptor;

TEST(Hyperparameters, TheMessageHasAFieldPerEntryAndNoOther) {
  const google::protobuf::Descriptor* d = v1::Hyperparameters::descriptor();
  std::set<std::string> fields;
  for (int i = 0; i < d->field_count(); ++i) fields.insert(d->field(i)->name());
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    SCOPED_TRACE(std::string(info.name));
    const FieldDescriptor* f = d->FindFieldByName(ProtoFieldName(info.name));
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->has_presence());
    switch (info.type) {
      case HyperType::kInteger:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_INT32);
        EXPECT_LE(info.max, 2147483647.0);
        break;
      case HyperType::kSeed:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_UINT64);
        break;
      case HyperType::kReal:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_DOUBLE);
        break;
      case HyperType::kChoice:
      case HyperType::kWeights:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_STRING);
        break;
    }
    fields.erase(f->name());
  }
  EXPECT_TRUE(fields.empty()) << "fields without an entry: " << *fields.begin();
}

TEST(Hyperparameters, NamesBecomeFlagsAndFields) {
  EXPECT_EQ(FlagName("warmupEpochs"), "warmup-epochs");
  EXPECT_EQ(FlagName("lambda1"), "lambda1");
  EXPECT_EQ(ProtoFieldName("gradientClipping"), "gradient_clipping");
  EXPECT_NE(FindHyperparameter("batchSize"), nullptr);
  EXPECT_EQ(FindHyperparameter("batch_size"), nullptr);
}

TEST(Hyperparameters, DefaultsAreValidAndMatchTheDocumentedDefaults) {
  Hyperparameters h;
  EXPECT_TRUE(ValidateHyperparameters(h).ok());
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    SCOPED_TRACE(std::string(info.name));
    std::optional<HyperValue> v = GetHyperparameter(h, info);
    if (info.optional) {
      EXPECT_FALSE(v.has_value());
      const std::set<std::string_view> unset = {"the optimizer's", "auto",
                                                "none"};
      EXPECT_TRUE(unset.count(info.default_text)) << info.default_text;
    } else {
      ASSERT_TRUE(v.has_value());
      EXPECT_EQ(FormatHyperValue(*v), info.default_text);
    }
  }
}

// Each refusal with its exact message, the one the CLI, SubmitJob and
// CheckModel's preview all show.
TEST(Hyperparameters, RefusesBadValuesNamingTheField) {
  struct Case {
    const char* name;
    HyperValue value;
    const char* message;
  };
  const Case cases[] = {
      {"epochs", int64_t{0}, "hyperparameter epochs: 0 is outside 1..10000000"},
      {"lr", std::nan(""), "hyperparameter lr: must be a finite number"},
      {"lr", -0.1, "hyperparameter lr: -0.1 is outside (0, 1000000]"},
      {"lr", 0.0, "hyperparameter lr: 0 is outside (0, 1000000]"},
      {"beta1", 2.0, "hyperparameter beta1: 2 is outside [0, 1]"},
      {"scale", 0.0, "hyperparameter scale: 0 is outside (0, 1e+30]"},
      {"lambda1", -1.0, "hyperparameter lambda1: -1 is outside [0, 100]"},
      {"optimizer", std::string("adagrad"),
       "hyperparameter optimizer: 'adagrad' is not one of auto, lion, rlion, "
       "nesterov, sgdm, adam, adamw"},
      {"epsilon", 0.0, "hyperparameter epsilon: 0 is outside (0, 1]"},
      {"lossWeights", std::string("1,-2"),
       "hyperparameter lossWeights: takes 'auto' or one non-negative weight "
       "per output, comma-separated; not '1,-2'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Hyperparameters h;
    absl::Status s = SetHyperparameter(h, *FindHyperparameter(c.name), c.value);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(s.message()), c.message);
    EXPECT_EQ(h, Hyperparameters());  // nothing stored
  }
}

TEST(Hyperparameters, TextIsParsedByType) {
  Hyperparameters h;
  const HyperparameterInfo& epochs = *FindHyperparameter("epochs");
  EXPECT_TRUE(SetHyperparameterText(h, epochs, "300").ok());
  EXPECT_EQ(h.epochs, 300);
  EXPECT_EQ(SetHyperparameterText(h, epochs, "3.5").message(),
            "hyperparameter epochs: '3.5' is not an integer");
  EXPECT_EQ(
      SetHyperparameterText(h, *FindHyperparameter("lr"), "nan").message(),
      "hyperparameter lr: must be a finite number");
  EXPECT_EQ(
      SetHyperparameterText(h, *FindHyperparameter("lr"), "inf").message(),
      "hyperparameter lr: must be a finite number");
  EXPECT_EQ(
      SetHyperparameterText(h, *FindHyperparameter("seed"), "-1").message(),
      "hyperparameter seed: '-1' is not a non-negative integer");
  EXPECT_TRUE(
      SetHyperparameterText(h, *FindHyperparameter("regularization"), "L1+L2")
          .ok());
  EXPECT_EQ(h.regularization, Regularization::kL1L2);
  EXPECT_TRUE(
      SetHyperparameterText(h, *FindHyperparameter("lossWeights"), "1,0.5")
          .ok());
  EXPECT_EQ(h.loss_weights, (std::vector<double>{1, 0.5}));
  EXPECT_EQ(h.epochs, 300);  // refusals changed nothing
}

// A long bad value is echoed cut to 200 characters.
TEST(Hyperparameters, EchoedValuesAreCut) {
  Hyperparameters h;
  absl::Status s = SetHyperparameter(h, *FindHyperparameter("optimizer"),
                                     std::string(100000, 'x'));
  EXPECT_LT(s.message().size(), 300u);
}

TEST(Hyperparameters, ValidateChecksAStructBuiltInCode) {
  Hyperparameters h;
  h.beta2 = 1.5;
  EXPECT_EQ(ValidateHyperparameters(h).message(),
            "hyperparameter beta2: 1.5 is outside [0, 1]");
  h.beta2.reset();
  h.threads = 0;
  EXPECT_EQ(ValidateHyperparameters(h).message(),
            "hyperparameter threads: 0 is outside 1..256");
}

// Every value survives text and the message; an absent field keeps the
// default in a request and is zero in an old snapshot.
TEST(Hyperparameters, RoundTripsThroughTextAndTheMessage) {
  Hyperparameters h;
  h.epochs = 7;
  h.lr = 0.05;
  h.optimizer = OptimizerKind::kSgdm;
  h.loss_weights = {1, 0.25};
  h.regularization = Regularization::kOff;
  h.gradient_clipping = GradientClipping::kAgc;
  h.seed = 18446744073709551615u;
  h.clip_alpha = 0;
  h.momentum_factor = 0.8;
  Hyperparameters from_text;
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    std::optional<HyperValue> v = GetHyperparameter(h, info);
    if (!v) continue;
    ASSERT_TRUE(
        SetHyperparameterText(from_text, info, FormatHyperValue(*v)).ok())
        << info.name;
  }
  EXPECT_EQ(from_text, h);
  absl::StatusOr<Hyperparameters> back =
      HyperparametersFromProto(HyperparametersToProto(h));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, h);

  v1::Hyperparameters only_epochs;
  only_epochs.set_epochs(3);
  absl::StatusOr<Hyperparameters> request =
      HyperparametersFromProto(only_epochs);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->seed, 1u);
  EXPECT_EQ(request->clip_alpha, 0.99);
  // A snapshot written without presence left zeros off the wire.
  v1::Hyperparameters old = HyperparametersToProto(Hyperparameters());
  old.clear_seed();
  old.clear_clip_alpha();
  absl::StatusOr<Hyperparameters> snapshot =
      HyperparametersFromProto(old, AbsentField::kZero);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->seed, 0u);
  EXPECT_EQ(snapshot->clip_alpha, 0);
  EXPECT_FALSE(snapshot->lr.has_value());

  v1::Hyperparameters bad;
  bad.set_epochs(-1);
  EXPECT_EQ(HyperparametersFromProto(bad).status().message(),
            "hyperparameter epochs: -1 is outside 1..10000000");
}

// docs/training.md holds the table the code makes, between its markers.
TEST(Hyperparameters, TheDocumentedTableIsTheTable) {
  std::ifstream in(WEBNNM_SOURCE_DIR "/docs/training.md");
  ASSERT_TRUE(in) << "cannot read docs/training.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- hyperparameter table: begin -->\n";
  const std::string end = "<!-- hyperparameter table: end -->";
  size_t a = doc.find(begin), b = doc.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()),
            HyperparameterTableMarkdown())
      << "docs/training.md's table differs; paste this between the markers:\n"
      << HyperparameterTableMarkdown();
}

}  // namespace
}  // namespace webnnm::train
