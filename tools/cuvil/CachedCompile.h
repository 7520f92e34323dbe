// The compile cache as `cuvil compile` uses it: whether a compile may be
// served from it, its key, and `cuvil cache stats|clear|prune`.
#pragma once

#include "CompileCache.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cuvil {

struct CacheOptions {
  std::string directory = CompileCache::defaultDirectory();
  bool disabled = false;
  std::string maxSize = "5G";
};

// One compile's use of the cache: begin() looks the compile up (holding its
// key's lock from then on, so concurrent compiles of one model compile it
// once); finish() stores a successful compile's outputs. Trouble with the
// cache never fails a compile: it warns and compiles without it.
class CachedCompile {
public:
  // `inputs`: the model and its external data files; `arguments`: everything
  // else that decides the outputs; `outputs`: named as in the entry.
  CachedCompile(const std::string &directory, uint64_t maxBytes, std::vector<std::string> inputs,
                std::vector<std::string> arguments, std::vector<CachedFile> outputs);

  // True when the outputs were restored from the cache.
  bool begin();
  void finish();
  const std::string &directory() const { return cache_->directory(); }

private:
  void warn(const Status &status);

  std::unique_ptr<CompileCache> cache_;
  std::vector<std::string> inputs_;
  std::vector<std::string> arguments_;
  std::vector<CachedFile> outputs_;
  std::string key_;
  CompileCache::Lock lock_;
  bool active_ = false;
};

// `cuvil cache ACTION`: stats, clear or prune (to options.maxSize).
int runCacheCommand(const std::string &action, const CacheOptions &options);

} // namespace cuvil
