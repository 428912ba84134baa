#include "engine/model/binding.h"

#include <set>

#include "engine/base/strings.h"
#include "engine/base/suggest.h"

namespace webnnm::model {
namespace {

class Binder {
 public:
  Binder(const ir::OpDef& op, Layer& layer, Diagnostics& diagnostics,
         const RefMaker& make_ref)
      : op_(op),
        layer_(layer),
        diagnostics_(diagnostics),
        make_ref_(make_ref) {}

  void Run(const std::vector<const lang::Argument*>& args,
           const std::optional<TensorRef>& input) {
    std::vector<const lang::Argument*> positional, keyed;
    for (const lang::Argument* arg : args) {
      (arg->positional() ? positional : keyed).push_back(arg);
    }
    if (op_.variadic()) {
      BindVariadic(positional, input);
    } else if (op_.kind == ir::OpKind::kWhere) {
      bool has_condition = false;
      for (const lang::Argument* arg : keyed) {
        has_condition |= arg->key == "condition";
      }
      std::vector<int> order =
          has_condition ? std::vector<int>{1, 2} : std::vector<int>{0, 1, 2};
      // The specification's where(trueValue, falseValue, condition=c)
      // names all three: the layer's input is not an operand.
      const bool all_named = has_condition && positional.size() == 2;
      BindPositional(positional, all_named ? std::nullopt : input, order);
    } else {
      std::vector<int> order = op_.language_operands;
      if (order.empty()) {
        for (size_t i = 0; i < op_.operands.size(); ++i) {
          order.push_back(static_cast<int>(i));
        }
      } else {
        order.insert(order.begin(), 0);
      }
      BindPositional(positional, input, order);
    }
    for (const lang::Argument* arg : keyed) BindKeyed(*arg);
    CheckRequired();
  }

 private:
  void AddOperand(int slot, const lang::Value& value) {
    std::optional<TensorRef> ref = make_ref_(value);
    if (ref) layer_.operands.push_back({slot, *std::move(ref)});
    filled_.insert(slot);
  }

  // concat: the input and then each operand, or just the items of a list of
  // names: concat([a, b]).
  void BindVariadic(const std::vector<const lang::Argument*>& positional,
                    const std::optional<TensorRef>& input) {
    if (positional.size() == 1 && positional[0]->value.is_list() &&
        !positional[0]->value.items.empty()) {
      bool names = true;
      for (const lang::Value& item : positional[0]->value.items) {
        names &= item.is_name();
      }
      if (names) {
        int slot = 0;
        for (const lang::Value& item : positional[0]->value.items) {
          AddOperand(slot++, item);
        }
        return;
      }
    }
    int slot = 0;
    if (input) {
      layer_.operands.push_back({slot, *input});
      filled_.insert(slot++);
    }
    for (const lang::Argument* arg : positional) AddOperand(slot++, arg->value);
  }

  // Slot 0 takes the input when there is one; positional operands take the
  // remaining slots of `order` (which starts with slot 0).
  void BindPositional(const std::vector<const lang::Argument*>& positional,
                      const std::optional<TensorRef>& input,
                      std::vector<int> order) {
    size_t next = 0;
    if (input) {
      layer_.operands.push_back({order[0], *input});
      filled_.insert(order[0]);
      next = 1;
    }
    for (const lang::Argument* arg : positional) {
      if (next < order.size()) {
        AddOperand(order[next++], arg->value);
        continue;
      }
      if (op_.positional_attr != nullptr && arg->value.is_number() &&
          !set_attrs_.count(op_.positional_attr)) {
        set_attrs_.insert(op_.positional_attr);
        layer_.options.push_back(
            {op_.positional_attr, op_.positional_attr, arg->range, arg->value});
        continue;
      }
      size_t takes = order.size() - (input ? 1 : 0);
      diagnostics_.Error(
          arg->range,
          StrCat(op_.name, " takes ",
                 takes == 0 ? std::string("no operands")
                            : StrCat(takes, " operand", takes == 1 ? "" : "s"),
                 input ? " besides its input" : "", "; this one is extra",
                 layer_.context));
    }
  }

  void BindKeyed(const lang::Argument& arg) {
    int slot = op_.variadic() ? -1 : op_.FindOperand(arg.key);
    if (slot >= 0) {
      if (filled_.count(slot)) {
        diagnostics_.Error(arg.key_range,
                           StrCat(op_.name, " operand '", arg.key,
                                  "' is given twice", layer_.context));
        return;
      }
      AddOperand(slot, arg.value);
      return;
    }
    const ir::AttrSpec* spec = op_.FindAttr(arg.key);
    if (spec == nullptr) {
      for (const ir::AttrSpec& candidate : op_.attrs) {
        if (candidate.alias != nullptr && arg.key == candidate.alias) {
          spec = &candidate;
        }
      }
    }
    if (spec == nullptr) {
      std::vector<std::string> known = {"shape", "shapes", "name", "dataType"};
      for (const ir::AttrSpec& a : op_.attrs) known.push_back(a.name);
      for (const ir::OperandSpec& o : op_.operands) known.push_back(o.name);
      diagnostics_.Error(arg.key_range,
                         StrCat(op_.name, " has no option '", arg.key, "'",
                                DidYouMean(arg.key, known), layer_.context));
      return;
    }
    if (!set_attrs_.insert(spec->name).second) {
      diagnostics_.Error(arg.key_range,
                         StrCat(op_.name, " option '", arg.key,
                                "' is given twice", layer_.context));
      return;
    }
    layer_.options.push_back({spec->name, arg.key, arg.key_range, arg.value});
  }

  void CheckRequired() {
    if (op_.variadic()) {
      if (layer_.operands.empty()) {
        diagnostics_.Error(layer_.range,
                           StrCat(op_.name, " needs inputs", layer_.context));
      }
      return;
    }
    for (size_t slot = 0; slot < op_.operands.size(); ++slot) {
      const ir::OperandSpec& spec = op_.operands[slot];
      if (filled_.count(static_cast<int>(slot)) || spec.optional ||
          spec.zeros_if_absent || spec.param == ir::ParamRole::kRunningMean ||
          spec.param == ir::ParamRole::kRunningVariance) {
        continue;
      }
      if (slot == 0) {
        diagnostics_.Error(layer_.range,
                           StrCat(op_.name,
                                  " has no input: it starts a block without "
                                  "input, so give its input as the first "
                                  "operand",
                                  layer_.context));
      } else {
        diagnostics_.Error(layer_.range,
                           StrCat(op_.name, " needs its operand '", spec.name,
                                  "'", layer_.context));
      }
    }
  }

  const ir::OpDef& op_;
  Layer& layer_;
  Diagnostics& diagnostics_;
  const RefMaker& make_ref_;
  std::set<int> filled_;
  std::set<std::string> set_attrs_;
};

}  // namespace

void BindArguments(const ir::OpDef& op,
                   const std::vector<const lang::Argument*>& args,
                   const std::optional<TensorRef>& input, Layer& layer,
                   Diagnostics& diagnostics, const RefMaker& make_ref) {
  Binder(op, layer, diagnostics, make_ref).Run(args, input);
}

}  // namespace webnnm::model
