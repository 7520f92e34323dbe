// Runs two instances of the bundled example model at once, one per thread,
// through the shared library:
//
//   cuvil compile --input models/example/tiny_cnn.onnx --emit shared --output out/tiny_cnn
//   c++ -std=c++17 examples/cpp/classify_concurrently.cpp -Iout -Lout -ltiny_cnn \
//       -Wl,-rpath,'$ORIGIN/out' -pthread -o classify_concurrently
//   ./classify_concurrently image.f32 probs.f32
//
// Each thread classifies the image 100 times on its own instance (one
// worker thread each); every result must be the same, written to probs.f32.
#include "tiny_cnn.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

// An instance with its lifetime tied to the object; failures throw.
class TinyCnn {
public:
  TinyCnn() {
    cuvil_instance *instance = nullptr;
    check(tiny_cnn_create(&instance), nullptr);
    instance_.reset(instance);
    check(tiny_cnn_set_threads(instance, 1), instance);
  }

  std::vector<float> run(const std::vector<float> &image) const {
    cuvil_tensor_desc out;
    check(tiny_cnn_output(0, &out), nullptr);
    size_t count = 1;
    for (int32_t d = 0; d < out.rank; ++d)
      count *= size_t(out.max_dims[d]);
    std::vector<float> probs(count);
    const void *inputs[] = {image.data()};
    void *outputs[] = {probs.data()};
    check(tiny_cnn_run(instance_.get(), inputs, nullptr, outputs, nullptr), instance_.get());
    return probs;
  }

private:
  static void check(cuvil_status status, const cuvil_instance *instance) {
    if (status != CUVIL_OK)
      throw std::runtime_error(tiny_cnn_last_error(instance));
  }
  struct Destroy {
    void operator()(cuvil_instance *instance) const { tiny_cnn_destroy(instance); }
  };
  std::unique_ptr<cuvil_instance, Destroy> instance_;
};

std::vector<float> readFloats(const std::string &path, size_t count) {
  std::vector<float> values(count);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char *>(values.data()), std::streamsize(count * sizeof(float))))
    throw std::runtime_error("cannot read " + std::to_string(count) + " floats from " + path);
  return values;
}

} // namespace

int main(int argc, char **argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IMAGE.f32 PROBS.f32\n", argv[0]);
    return 2;
  }
  cuvil_tensor_desc in;
  if (tiny_cnn_input(0, &in) != CUVIL_OK)
    return 1;
  size_t count = 1;
  for (int32_t d = 0; d < in.rank; ++d)
    count *= size_t(in.max_dims[d]);
  std::vector<float> image = readFloats(argv[1], count);

  TinyCnn first, second;
  std::vector<std::vector<float>> results[2];
  auto classify = [&](const TinyCnn &model, std::vector<std::vector<float>> &into) {
    for (int run = 0; run < 100; ++run)
      into.push_back(model.run(image));
  };
  std::thread a(classify, std::cref(first), std::ref(results[0]));
  std::thread b(classify, std::cref(second), std::ref(results[1]));
  a.join();
  b.join();
  for (const auto &runs : results)
    for (const std::vector<float> &probs : runs)
      if (probs != results[0][0]) {
        std::fprintf(stderr, "error: the instances' results differ\n");
        return 1;
      }
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char *>(results[0][0].data()),
            std::streamsize(results[0][0].size() * sizeof(float)));
  if (!out.flush())
    throw std::runtime_error(std::string("cannot write ") + argv[2]);
  std::printf("200 runs on 2 instances agree\n");
  return 0;
} catch (const std::exception &error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
