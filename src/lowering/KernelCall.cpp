#include "cuvil/lowering/KernelCall.h"

#include <fmt/format.h>

namespace cuvil {
namespace {

std::string_view kindName(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Pointer:
    return "a buffer";
  case KernelArg::Kind::Null:
    return "a null pointer";
  case KernelArg::Kind::I64:
    return "an int64_t";
  case KernelArg::Kind::F32:
    return "a float";
  case KernelArg::Kind::Block:
    return "a parameter block";
  case KernelArg::Kind::Table:
    return "a constant table";
  }
  return "?";
}

// What is wrong with argument `arg` for parameter `param` (number `index`).
void checkArgument(const KernelParam &param, const KernelArg &arg, size_t index,
                   std::vector<std::string> &problems) {
  auto mismatch = [&](std::string_view got) {
    problems.push_back(
        fmt::format("argument {} must be {}, the lowering passed {}", index, param.type, got));
  };
  switch (param.kind) {
  case KernelParam::Kind::Buffer: {
    if (arg.kind() == KernelArg::Kind::Null)
      return;
    if (arg.kind() == KernelArg::Kind::Table) {
      if (param.writable || arg.tableElementBytes() != param.elementBytes)
        mismatch(fmt::format("a constant table of {}-byte elements", arg.tableElementBytes()));
      return;
    }
    if (arg.kind() != KernelArg::Kind::Pointer)
      return mismatch(kindName(arg.kind()));
    if (arg.isRandomState() || arg.isStringServices())
      return mismatch(arg.isRandomState() ? "the random state" : "the string services");
    if (arg.symbol() || arg.isErrorCell()) {
      if (!param.writable || param.elementBytes != sizeof(int64_t))
        mismatch(arg.symbol() ? "the slot of a symbol (an int64_t the kernel writes)"
                              : "the error cell (int64_t[2] the kernel writes)");
      return;
    }
    const Value *value = arg.value();
    if (!value->hasType())
      return problems.push_back(fmt::format("argument {} (%{}) has no type", index, value->name()));
    size_t elementBytes = dtypeSize(value->type().dtype);
    if (elementBytes != param.elementBytes)
      mismatch(fmt::format("%{} of {} ({}-byte elements)", value->name(),
                           dtypeName(value->type().dtype), elementBytes));
    if (param.writable && value->isConstant())
      problems.push_back(fmt::format("argument {} is written by the kernel, but %{} is a constant",
                                     index, value->name()));
    return;
  }
  case KernelParam::Kind::I64:
    if (arg.kind() != KernelArg::Kind::I64)
      mismatch(kindName(arg.kind()));
    return;
  case KernelParam::Kind::F32:
    if (arg.kind() != KernelArg::Kind::F32)
      mismatch(kindName(arg.kind()));
    return;
  case KernelParam::Kind::RandomState:
    if (!arg.isRandomState())
      mismatch(arg.kind() == KernelArg::Kind::Pointer ? "a buffer" : kindName(arg.kind()));
    return;
  case KernelParam::Kind::StringServices:
    if (!arg.isStringServices())
      mismatch(arg.kind() == KernelArg::Kind::Pointer ? "a buffer" : kindName(arg.kind()));
    return;
  case KernelParam::Kind::Block:
    if (arg.kind() != KernelArg::Kind::Block)
      return mismatch(kindName(arg.kind()));
    if (arg.blockTag() != param.blockTag || arg.bytes().size() != param.blockBytes)
      mismatch(fmt::format("a {} block", arg.blockName()));
    return;
  }
}

} // namespace

Status KernelRef::checkCall(const std::vector<KernelArg> &args) const {
  std::vector<std::string> problems;
  if (args.size() != params_.size())
    problems.push_back(
        fmt::format("takes {} arguments before its task range, the lowering passed {}",
                    params_.size(), args.size()));
  for (size_t i = 0; i < std::min(args.size(), params_.size()); ++i)
    checkArgument(params_[i], args[i], i, problems);
  // The block's contents, wherever a block of the right type was passed.
  for (const KernelArg &arg : args) {
    if (arg.kind() != KernelArg::Kind::Block || !check_)
      continue;
    if (arg.blockTag() == checkedTag_)
      check_(arg.bytes().data(), problems);
  }
  if (problems.empty())
    return Status::success();
  return Status::error(fmt::format("kernel {}: {}", name_, fmt::join(problems, "; ")));
}

} // namespace cuvil
