#include "CachedCompile.h"

#include <fmt/format.h>
#include <iostream>

namespace cuvil {

CachedCompile::CachedCompile(const std::string &directory, uint64_t maxBytes,
                             std::vector<std::string> inputs, std::vector<std::string> arguments,
                             std::vector<CachedFile> outputs)
    : cache_(std::make_unique<CompileCache>(directory, maxBytes)), inputs_(std::move(inputs)),
      arguments_(std::move(arguments)), outputs_(std::move(outputs)) {}

void CachedCompile::warn(const Status &status) {
  std::cerr << fmt::format("warning: the compile cache {} is not used: {}\n", cache_->directory(),
                           status.message());
  active_ = false;
}

bool CachedCompile::begin() {
  Expected<std::string> key = CompileCache::key(arguments_, inputs_);
  if (!key)
    return false;
  key_ = *key;
  Expected<CompileCache::Lock> lock = cache_->lock(key_);
  if (!lock) {
    warn(lock.status());
    return false;
  }
  lock_ = lock.take();
  active_ = true;
  Expected<bool> restored = cache_->restore(key_, outputs_);
  if (!restored) {
    warn(restored.status());
    return false;
  }
  return *restored;
}

void CachedCompile::finish() {
  if (!active_)
    return;
  if (Status status = cache_->store(key_, outputs_); !status.ok())
    warn(status);
}

int runCacheCommand(const std::string &action, const CacheOptions &options) {
  if (options.directory.empty()) {
    std::cerr << "error: no cache directory: give --cache-dir (neither XDG_CACHE_HOME nor HOME "
                 "is set)\n";
    return 1;
  }
  Expected<uint64_t> maxBytes = parseByteSize(options.maxSize);
  if (!maxBytes) {
    std::cerr << "error: --max-size " << maxBytes.status().message() << "\n";
    return 1;
  }
  CompileCache cache(options.directory, *maxBytes);
  auto print = [&](const CacheStats &stats) {
    std::cout << fmt::format("{}: {} entries, {:.1f} MiB (bound {:.1f} MiB)\n", options.directory,
                             stats.entries, double(stats.bytes) / (1 << 20),
                             double(*maxBytes) / (1 << 20));
  };
  if (action == "stats") {
    print(cache.stats());
  } else if (action == "prune") {
    print(cache.prune());
  } else if (action == "clear") {
    if (Status status = cache.clear(); !status.ok()) {
      std::cerr << "error: " << status.message() << "\n";
      return 1;
    }
    print(cache.stats());
  } else {
    std::cerr << fmt::format("error: cuvil cache {}: the actions are stats, clear, prune\n",
                             action);
    return 1;
  }
  return 0;
}

} // namespace cuvil
