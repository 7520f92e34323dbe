#include "RecurrentCommon.h"

#include "Elementwise.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace cuvil::ops {
namespace {

// The activation functions ONNX lists for recurrences: the unary ops of
// these names, and two that are no ONNX op, with the defaults of the
// experimental ops they were.
constexpr std::string_view kOpActivations[] = {
    "Relu",        "Tanh", "Sigmoid",  "LeakyRelu", "ThresholdedRelu",
    "HardSigmoid", "Elu",  "Softsign", "Softplus"};
struct OwnActivation {
  std::string_view name;
  cuvil_unary_op kernel;
  float alpha, beta;
};
constexpr OwnActivation kOwnActivations[] = {{"Affine", CUVIL_UNARY_AFFINE, 1.0f, 0.0f},
                                             {"ScaledTanh", CUVIL_UNARY_SCALED_TANH, 1.0f, 1.0f}};

bool sameName(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

// `name` (any case, as ONNX Runtime reads it) with the next of `alphas`
// and `betas` for the parameters it takes, its defaults past their end.
Expected<RecurrentActivation> activation(std::string_view name, const std::vector<float> &alphas,
                                         size_t &alpha, const std::vector<float> &betas,
                                         size_t &beta) {
  auto next = [](const std::vector<float> &values, size_t &at, float fallback) {
    return at < values.size() ? values[at++] : fallback;
  };
  for (const OwnActivation &own : kOwnActivations) {
    if (!sameName(name, own.name))
      continue;
    float a = next(alphas, alpha, own.alpha), b = next(betas, beta, own.beta);
    return RecurrentActivation{nullptr, {a, b}, {own.kernel, a, b}};
  }
  for (std::string_view opName : kOpActivations) {
    if (!sameName(name, opName))
      continue;
    const OpDefinition &op = *findOpDefinition(opName);
    const ElementwiseFacts &facts = *op.schema.elementwise;
    std::vector<float> params;
    for (std::string_view param : facts.paramAttributes) {
      float fallback = std::get<float>(*op.schema.findAttribute(param)->defaultValue);
      params.push_back(param == "alpha" ? next(alphas, alpha, fallback)
                                        : next(betas, beta, fallback));
    }
    cuvil_unary kernel = unaryKernelOf(op, params);
    return RecurrentActivation{&op, std::move(params), kernel};
  }
  return Status::error(
      fmt::format("activation '{}' is not one ONNX defines for recurrences", name));
}

} // namespace

const RecurrentCell *recurrentCell(std::string_view op) {
  static const RecurrentCell kCells[] = {
      {"RNN", CUVIL_CELL_RNN, 1, {"Tanh"}},
      {"GRU", CUVIL_CELL_GRU, 3, {"Sigmoid", "Tanh"}},
      {"LSTM", CUVIL_CELL_LSTM, 4, {"Sigmoid", "Tanh", "Tanh"}},
  };
  for (const RecurrentCell &cell : kCells)
    if (cell.op == op)
      return &cell;
  return nullptr;
}

std::vector<AttrSpec> recurrentAttributes(std::string_view op) {
  std::vector<AttrSpec> attributes = {
      {"direction", AttrKind::String, Attribute(std::string("forward"))},
      {"hidden_size", AttrKind::Int},
      {"activations", AttrKind::Strings},
      {"activation_alpha", AttrKind::Floats},
      {"activation_beta", AttrKind::Floats},
      {"clip", AttrKind::Float},
      {"layout", AttrKind::Int, Attribute(int64_t(0))}};
  if (op == "RNN")
    attributes[2].defaultValue = Attribute(std::vector<std::string>{"Tanh", "Tanh"});
  const bool every = op == "cuvil.Recurrence";
  if (op == "GRU" || every)
    attributes.push_back({"linear_before_reset", AttrKind::Int, Attribute(int64_t(0))});
  if (op == "LSTM" || every)
    attributes.push_back({"input_forget", AttrKind::Int, Attribute(int64_t(0))});
  if (every)
    attributes.push_back({"cell", AttrKind::String, std::nullopt, true});
  return attributes;
}

Shape RecurrentGeometry::stateShape() const {
  return batchMajor ? Shape{batch, directions, hidden} : Shape{directions, batch, hidden};
}

Shape RecurrentGeometry::outputShape() const {
  return batchMajor ? Shape{batch, steps, directions, hidden}
                    : Shape{steps, directions, batch, hidden};
}

Expected<RecurrentGeometry> recurrentGeometry(const Node &node, const RecurrentCell &cell,
                                              const Shape &x, int64_t hidden) {
  std::string direction = node.getString("direction");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return Status::error(
        fmt::format("direction '{}' is not one of forward, reverse and bidirectional", direction));
  int64_t layout = node.getInt("layout");
  if (layout != 0 && layout != 1)
    return Status::error(fmt::format("layout {} is neither 0 nor 1", layout));
  if (hidden < 1)
    return Status::error(fmt::format("hidden_size {} is not positive", hidden));
  if (node.hasAttr("clip") && !(node.getFloat("clip") > 0))
    return Status::error(fmt::format("clip {} is not positive", node.getFloat("clip")));
  if (x.size() != 3)
    return Status::error(fmt::format("X must have rank 3, has [{}]", shapeToString(x)));
  bool batchMajor = layout == 1;
  return RecurrentGeometry{&cell,
                           direction == "bidirectional" ? 2 : 1,
                           hidden,
                           direction == "reverse",
                           batchMajor,
                           batchMajor ? x[1] : x[0],
                           batchMajor ? x[0] : x[1]};
}

Status inferRecurrentResults(InferContext &ctx, const RecurrentGeometry &g, size_t first,
                             DType dtype) {
  const int64_t D = g.directions, GH = g.cell->gates * g.hidden;
  struct Optional {
    size_t input;
    const char *name;
    Shape shape;
    DType dtype;
  };
  const Optional optionals[] = {{first, "B", {D, 2 * GH}, dtype},
                                {first + 1, "sequence_lens", {g.batch}, DType::I32},
                                {first + 2, "initial_h", g.stateShape(), dtype},
                                {first + 3, "initial_c", g.stateShape(), dtype},
                                {first + 4, "P", {D, 3 * g.hidden}, dtype}};
  for (const Optional &input : optionals) {
    if (!ctx.hasInput(input.input))
      continue;
    const TensorType &type = ctx.inputType(input.input);
    if (type.dtype != input.dtype || !(type.shape == input.shape))
      return ctx.error("{} is {}, expected {}", input.name, type.str(),
                       TensorType{input.dtype, input.shape}.str());
  }
  const Shape results[] = {g.outputShape(), g.stateShape(), g.stateShape()};
  for (size_t i = 0; i < std::min<size_t>(ctx.node().numOutputs(), 3); ++i)
    ctx.setOutput(i, TensorType{dtype, results[i]});
  return Status::success();
}

double RecurrentActivation::apply(double x) const {
  if (op)
    return op->elementwise.unaryReference(x, params);
  return kernel.op == CUVIL_UNARY_AFFINE ? params[0] * x + params[1]
                                         : params[0] * std::tanh(params[1] * x);
}

Expected<std::vector<RecurrentActivation>> recurrentActivations(const Node &node,
                                                                const RecurrentGeometry &g) {
  const size_t perDirection = g.cell->activations.size(), count = perDirection * g.directions;
  std::vector<std::string> names;
  if (node.hasAttr("activations"))
    names = node.getStrings("activations");
  else
    for (int64_t d = 0; d < g.directions; ++d)
      names.insert(names.end(), g.cell->activations.begin(), g.cell->activations.end());
  // RNN's ONNX default names two functions; one direction takes the first
  // (as ONNX Runtime reads it).
  if (g.directions == 1 && names.size() == 2 * perDirection)
    names.resize(perDirection);
  if (names.size() != count)
    return Status::error(fmt::format("activations names {} functions, {} {} takes {}", names.size(),
                                     g.directions == 2 ? "a bidirectional" : "a", g.cell->op,
                                     count));
  std::vector<float> alphas = node.getFloats("activation_alpha");
  std::vector<float> betas = node.getFloats("activation_beta");
  size_t alpha = 0, beta = 0;
  std::vector<RecurrentActivation> activations;
  for (const std::string &name : names) {
    Expected<RecurrentActivation> f = activation(name, alphas, alpha, betas, beta);
    CUVIL_TRY(f.status());
    activations.push_back(f.take());
  }
  return activations;
}

Status inferRecurrent(InferContext &ctx) {
  const RecurrentCell &cell = *recurrentCell(ctx.node().op());
  const DType dtype = ctx.inputDType(kX);
  if (!isFloat(dtype))
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  for (size_t i : {kW, kR})
    if (ctx.inputDType(i) != dtype)
      return ctx.error("{} is {}, X {}", i == kW ? "W" : "R", dtypeName(ctx.inputDType(i)),
                       dtypeName(dtype));
  const Shape &x = ctx.inputShape(kX), &w = ctx.inputShape(kW), &r = ctx.inputShape(kR);
  if (r.size() != 3 || (!ctx.node().hasAttr("hidden_size") && !r[2].isConstant()))
    return ctx.error("R must be [num_directions, {} x hidden_size, hidden_size], is [{}]",
                     cell.gates, shapeToString(r));
  int64_t hidden =
      ctx.node().hasAttr("hidden_size") ? ctx.node().getInt("hidden_size") : r[2].constant();
  Expected<RecurrentGeometry> g = recurrentGeometry(ctx.node(), cell, x, hidden);
  CUVIL_TRY(g.status());
  const int64_t D = g->directions, GH = cell.gates * hidden;
  if (!(w == Shape{D, GH, x[2]}))
    return ctx.error("W is [{}], expected [{}]", shapeToString(w),
                     shapeToString(Shape{D, GH, x[2]}));
  if (!(r == Shape{D, GH, hidden}))
    return ctx.error("R is [{}], expected [{}]", shapeToString(r),
                     shapeToString(Shape{D, GH, hidden}));
  CUVIL_TRY(recurrentActivations(ctx.node(), *g).status());
  return inferRecurrentResults(ctx, *g, kB, dtype);
}

Status evalRecurrent(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  auto input = [&](size_t i) { return i < in.size() ? in[i] : nullptr; };
  const Tensor &x = *in[kX], &w = *in[kW], &r = *in[kR];
  const Tensor *bias = input(kB), *lengths = input(kSequenceLens), *h0 = input(kInitialH),
               *c0 = input(kInitialC), *peepholes = input(kPeepholes);
  const RecurrentCell &cell = *recurrentCell(node.op());
  const int64_t H = r.dim(2);
  RecurrentGeometry g = *recurrentGeometry(node, cell, x.shape(), H);
  std::vector<RecurrentActivation> acts = *recurrentActivations(node, g);
  const int64_t S = g.steps.constant(), B = g.batch.constant(), I = x.dim(2), D = g.directions;
  const int64_t G = cell.gates, perDirection = int64_t(cell.activations.size());
  const bool clipped = node.hasAttr("clip"), batchMajor = g.batchMajor;
  const double bound = clipped ? node.getFloat("clip") : 0;
  const bool linearBeforeReset =
      cell.kernel == CUVIL_CELL_GRU && node.getInt("linear_before_reset");
  const bool inputForget = cell.kernel == CUVIL_CELL_LSTM && node.getInt("input_forget");
  auto clip = [&](double v) { return clipped ? std::clamp(v, -bound, bound) : v; };
  auto stateAt = [&](int64_t d, int64_t b) { return (batchMajor ? b * D + d : d * B + b) * H; };
  auto yAt = [&](int64_t t, int64_t d, int64_t b) {
    return (batchMajor ? (b * S + t) * D + d : (t * D + d) * B + b) * H;
  };
  for (Tensor &result : out)
    for (int64_t i = 0, n = result.numElements(); i < n; ++i)
      result.setDouble(i, 0.0);
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = d == 1 || g.reverse;
    auto act = [&](int64_t which, double v) {
      return acts[size_t(d * perDirection + which)].apply(v);
    };
    auto wb = [&](int64_t gate, int64_t j) {
      return bias ? bias->getDouble(d * 2 * G * H + gate * H + j) : 0.0;
    };
    auto rb = [&](int64_t gate, int64_t j) {
      return bias ? bias->getDouble(d * 2 * G * H + (G + gate) * H + j) : 0.0;
    };
    auto peephole = [&](int64_t gate, int64_t j) {
      return peepholes ? peepholes->getDouble(d * 3 * H + gate * H + j) : 0.0;
    };
    for (int64_t b = 0; b < B; ++b) {
      const int64_t length = lengths ? lengths->getInt(b) : S;
      if (length < 0 || length > S)
        return Status::error(fmt::format("sequence_lens[{}] is {}, outside [0, {}]", b, length, S));
      const size_t units = size_t(H);
      std::vector<double> h(units), c(units);
      for (int64_t j = 0; j < H; ++j) {
        h[size_t(j)] = h0 ? h0->getDouble(stateAt(d, b) + j) : 0.0;
        c[size_t(j)] = c0 ? c0->getDouble(stateAt(d, b) + j) : 0.0;
      }
      for (int64_t s = 0; s < length; ++s) {
        const int64_t t = reverse ? length - 1 - s : s;
        const int64_t xRow = (batchMajor ? b * S + t : t * B + b) * I;
        // x W^T and v R^T of gate `gate`, unit j.
        auto wx = [&](int64_t gate, int64_t j) {
          double sum = 0;
          for (int64_t i = 0; i < I; ++i)
            sum += x.getDouble(xRow + i) * w.getDouble(((d * G + gate) * H + j) * I + i);
          return sum;
        };
        auto rv = [&](int64_t gate, int64_t j, const std::vector<double> &v) {
          double sum = 0;
          for (int64_t k = 0; k < H; ++k)
            sum += v[size_t(k)] * r.getDouble(((d * G + gate) * H + j) * H + k);
          return sum;
        };
        auto pre = [&](int64_t gate, int64_t j) {
          return wx(gate, j) + rv(gate, j, h) + wb(gate, j) + rb(gate, j);
        };
        std::vector<double> next(units);
        if (cell.kernel == CUVIL_CELL_RNN) {
          for (int64_t j = 0; j < H; ++j)
            next[size_t(j)] = act(0, clip(pre(0, j)));
        } else if (cell.kernel == CUVIL_CELL_GRU) {
          std::vector<double> z(units), reset(units), resetH(units);
          for (int64_t j = 0; j < H; ++j) {
            z[size_t(j)] = act(0, clip(pre(0, j)));
            reset[size_t(j)] = act(0, clip(pre(1, j)));
            resetH[size_t(j)] = reset[size_t(j)] * h[size_t(j)];
          }
          for (int64_t j = 0; j < H; ++j) {
            double n = linearBeforeReset
                           ? wx(2, j) + reset[size_t(j)] * (rv(2, j, h) + rb(2, j)) + wb(2, j)
                           : wx(2, j) + rv(2, j, resetH) + wb(2, j) + rb(2, j);
            n = act(1, clip(n));
            next[size_t(j)] = (1 - z[size_t(j)]) * n + z[size_t(j)] * h[size_t(j)];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            const double previous = c[size_t(j)];
            double i = act(0, clip(pre(0, j) + peephole(0, j) * previous));
            double f = inputForget ? 1 - i : act(0, clip(pre(2, j) + peephole(2, j) * previous));
            c[size_t(j)] = f * previous + i * act(1, clip(pre(3, j)));
            double o = act(0, clip(pre(1, j) + peephole(1, j) * c[size_t(j)]));
            next[size_t(j)] = o * act(2, c[size_t(j)]);
          }
        }
        h = next;
        if (!out.empty())
          for (int64_t j = 0; j < H; ++j)
            out[0].setDouble(yAt(t, d, b) + j, h[size_t(j)]);
      }
      const std::vector<double> *finals[] = {&h, &c};
      for (size_t i = 1; i < std::min<size_t>(out.size(), 3); ++i)
        for (int64_t j = 0; length > 0 && j < H; ++j)
          out[i].setDouble(stateAt(d, b) + j, (*finals[i - 1])[size_t(j)]);
    }
  }
  return Status::success();
}

Status lowerRecurrent(const Node &node, LoweringContext &) {
  return Status::error(fmt::format("internal error: canonicalize rewrites every {}", node.op()));
}

} // namespace cuvil::ops
