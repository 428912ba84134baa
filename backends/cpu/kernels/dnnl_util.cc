#include "backends/cpu/kernels/dnnl_util.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "backends/common/shape_util.h"

namespace webnnm::backends::cpu {

dnnl::memory::desc PlainDesc(const DnnlDims& dims) {
  DnnlDims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc StridedDesc(const DnnlDims& dims, const DnnlDims& strides) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

F32Staging::F32Staging(ir::DType dtype, std::byte* buffer, int64_t count)
    : dtype_(dtype), buffer_(buffer), count_(count) {
  if (dtype == ir::DType::kFloat32) {
    data_ = reinterpret_cast<float*>(buffer);
  } else {
    copy_.resize(count);
    data_ = copy_.data();
  }
}

void F32Staging::Widen() {
  if (dtype_ == ir::DType::kFloat32 || buffer_ == nullptr) return;
  const Half* h = reinterpret_cast<const Half*>(buffer_);
  for (int64_t i = 0; i < count_; ++i) data_[i] = Load(h + i);
}

void F32Staging::Narrow() {
  if (dtype_ == ir::DType::kFloat32 || buffer_ == nullptr) return;
  Half* h = reinterpret_cast<Half*>(buffer_);
  for (int64_t i = 0; i < count_; ++i) Store(h + i, data_[i]);
}

dnnl::primitive_attr DnnlKernel::Attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void DnnlKernel::AddInput(int arg, const dnnl::memory::desc& desc,
                          ir::DType dtype, const std::byte* buffer,
                          int64_t count) {
  elements_ = std::max(elements_, count);
  inputs_.push_back(std::make_unique<F32Staging>(
      dtype, const_cast<std::byte*>(buffer), count));
  args_[arg] = dnnl::memory(desc, context_.engine(), inputs_.back()->data());
}

void DnnlKernel::AddOutput(int arg, const dnnl::memory::desc& desc,
                           ir::DType dtype, std::byte* buffer, int64_t count) {
  elements_ = std::max(elements_, count);
  outputs_.push_back(std::make_unique<F32Staging>(dtype, buffer, count));
  args_[arg] = dnnl::memory(desc, context_.engine(), outputs_.back()->data());
}

void DnnlKernel::AddRaw(int arg, const dnnl::memory::desc& desc, void* data) {
  elements_ = std::max(elements_, static_cast<int64_t>(desc.get_size() / 4));
  args_[arg] = dnnl::memory(desc, context_.engine(), data);
}

void DnnlKernel::SetPrimitive(const dnnl::primitive_desc_base& pd) {
  primitive_ = dnnl::primitive(pd.get());
  implementation_ = std::string("oneDNN ") + pd.impl_info_str();
  const dnnl::memory::desc desc = pd.scratchpad_desc();
  size_t bytes = desc.get_size();
  if (bytes == 0) return;
  constexpr size_t kAlign = 64;
  scratchpad_.resize(bytes + kAlign);
  auto address = reinterpret_cast<uintptr_t>(scratchpad_.data());
  address = (address + kAlign - 1) / kAlign * kAlign;
  args_[DNNL_ARG_SCRATCHPAD] =
      dnnl::memory(desc, context_.engine(), reinterpret_cast<void*>(address));
}

bool UseDnnlFor(const KernelIO& io) {
  int64_t largest = 0;
  for (const auto* types : {&io.in_types, &io.out_types}) {
    for (const ir::TensorType* t : *types) {
      if (t) largest = std::max(largest, ElementCount(t->shape));
    }
  }
  return io.context.use_dnnl(largest);
}

absl::Status DnnlKernel::Run() {
  for (auto& input : inputs_) input->Widen();
  const bool alone = context_.threads() > 1 && elements_ < kParallelElements;
  if (alone) context_.EnterSingleThread();
  try {
    primitive_.execute(context_.stream(), args_);
    context_.stream().wait();
  } catch (const dnnl::error& e) {
    if (alone) context_.EnterThreads();
    return DnnlError(what_, e);
  }
  if (alone) context_.EnterThreads();
  for (auto& output : outputs_) output->Narrow();
  return absl::OkStatus();
}

bool PostOps::Build(const std::vector<FusedOp>& fused, const DnnlDims& dst,
                    const dnnl::engine& engine) {
  const size_t rank = dst.size();
  for (size_t i = 0; i < fused.size(); ++i) {
    const FusedOp& op = fused[i];
    if (op.other == nullptr) {
      if (!AppendEltwisePostOp(*op.node, ops_)) return false;
      continue;
    }
    dnnl::algorithm algorithm;
    switch (op.node->op->kind) {
      case ir::OpKind::kAdd:
        algorithm = dnnl::algorithm::binary_add;
        break;
      case ir::OpKind::kSub:
        algorithm = dnnl::algorithm::binary_sub;
        break;
      case ir::OpKind::kMul:
        algorithm = dnnl::algorithm::binary_mul;
        break;
      case ir::OpKind::kDiv:
        algorithm = dnnl::algorithm::binary_div;
        break;
      default:
        return false;
    }
    const std::vector<int64_t>& shape = op.other_type->shape;
    if (op.other_type->dtype != ir::DType::kFloat32 || shape.size() > rank) {
      return false;
    }
    DnnlDims dims(rank - shape.size(), 1);
    dims.insert(dims.end(), shape.begin(), shape.end());
    dnnl::memory::desc desc = PlainDesc(dims);
    ops_.append_binary(algorithm, desc);
    args_[DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) |
          DNNL_ARG_SRC_1] =
        dnnl::memory(desc, engine, const_cast<std::byte*>(op.other));
  }
  return true;
}

void PostOps::Bind(std::unordered_map<int, dnnl::memory>& args) const {
  for (const auto& [arg, memory] : args_) args[arg] = memory;
}

dnnl::memory MaybeReorder::Prepare(const dnnl::memory& user,
                                   const dnnl::memory::desc& wanted,
                                   const dnnl::engine& engine, bool into_user) {
  if (user.get_desc() == wanted) return user;
  dnnl::memory inner(wanted, engine);
  if (into_user) {
    reorder = dnnl::reorder(inner, user);
    args = {{DNNL_ARG_FROM, inner}, {DNNL_ARG_TO, user}};
  } else {
    reorder = dnnl::reorder(user, inner);
    args = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}};
  }
  return inner;
}

bool IsReference(const dnnl::primitive_desc_base& pd) {
  return std::string_view(pd.impl_info_str()).substr(0, 3) == "ref";
}

}  // namespace webnnm::backends::cpu
