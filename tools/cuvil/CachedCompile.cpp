#include "CachedCompile.h"

#include "cuvil/frontend/ExternalDataFiles.h"

#include <fmt/format.h>
#include <iostream>

namespace cuvil {

CachedCompile::CachedCompile(const CacheOptions &options, const std::string &model,
                             std::vector<std::string> arguments, std::vector<CachedFile> files)
    : model_(model), arguments_(std::move(arguments)), files_(std::move(files)) {
  Expected<uint64_t> maxBytes = parseByteSize(options.maxSize); // checked by the caller
  cache_ = std::make_unique<CompileCache>(options.directory,
                                          maxBytes ? *maxBytes : CompileCache::kDefaultMaxBytes);
}

void CachedCompile::warn(const Status &status) {
  std::cerr << fmt::format("warning: the compile cache {} is not used: {}\n", cache_->directory(),
                           status.message());
  active_ = false;
}

bool CachedCompile::begin() {
  // A model that cannot be read is the import's to report.
  Expected<std::vector<std::string>> external = externalDataFiles(model_);
  if (!external)
    return false;
  std::vector<std::string> files = {model_};
  files.insert(files.end(), external->begin(), external->end());
  Expected<std::string> key = CompileCache::key(arguments_, files);
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
  Expected<bool> restored = cache_->restore(key_, files_);
  if (!restored) {
    warn(restored.status());
    return false;
  }
  return *restored;
}

void CachedCompile::finish() {
  if (!active_)
    return;
  if (Status status = cache_->store(key_, files_); !status.ok())
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
