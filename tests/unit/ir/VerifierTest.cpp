#include "cuvil/ir/Verifier.h"
#include "cuvil/ir/Parser.h"
#include "cuvil/ops/AllOps.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

// Parses `body` as the graph `g(%x: f32[2,3])` and verifies it.
std::string verify(const std::string &body, bool requireTypes = true) {
  registerAllOps();
  Expected<std::unique_ptr<Graph>> graph = parseGraph("graph @g(%x: f32[2,3]) {\n" + body + "\n}");
  if (!graph.ok())
    return "parse: " + graph.status().message();
  Status status = verifyGraph(**graph, VerifyOptions{requireTypes});
  return status.ok() ? "ok" : status.message();
}

TEST(Verifier, AcceptsAWellTypedGraph) {
  EXPECT_EQ(verify("%y = Relu(%x) : f32[2,3]\n%z = Softmax(%y) {axis = 1} : f32[2,3]\nreturn %z"),
            "ok");
}

TEST(Verifier, RejectsUnknownOps) {
  EXPECT_EQ(verify("%y = Frobnicate(%x) : f32[2,3]\nreturn %y"), "Frobnicate node 'y': unknown op");
}

TEST(Verifier, RejectsWrongArity) {
  EXPECT_EQ(verify("%y = Add(%x) : f32[2,3]\nreturn %y"), "Add node 'y': takes 2 inputs, has 1");
}

TEST(Verifier, RejectsUnknownAttributesAndWrongKinds) {
  EXPECT_EQ(verify("%y = Relu(%x) {color = 3} : f32[2,3]\nreturn %y"),
            "Relu node 'y': unknown attribute 'color'");
  EXPECT_EQ(verify("%y = Softmax(%x) {axis = \"last\"} : f32[2,3]\nreturn %y"),
            "Softmax node 'y': attribute 'axis' must be int, not string");
}

TEST(Verifier, RejectsTypesTheShapeRuleDisagreesWith) {
  EXPECT_EQ(verify("%y = Transpose(%x) : f32[2,3]\nreturn %y"),
            "Transpose node 'y': result 0 is typed f32[2,3] but the shape rule gives f32[3,2]");
}

TEST(Verifier, RequiresTypesOnlyWhenAsked) {
  EXPECT_EQ(verify("%y = Relu(%x) : ?\nreturn %y", /*requireTypes=*/false), "ok");
  EXPECT_EQ(verify("%y = Relu(%x) : ?\nreturn %y"), "Relu node 'y': result %y has no type");
}

TEST(Verifier, RejectsShapeRuleErrors) {
  EXPECT_EQ(verify("%w = constant dense<f32[4,5], \"0x" + std::string(160, '0') +
                   "\">\n%y = MatMul(%x, %w) : f32[2,5]\nreturn %y"),
            "MatMul node 'y': inner dimensions differ: [2,3] x [4,5]");
}

} // namespace
} // namespace cuvil
