// The compile cache: a compile's outputs kept under a key of everything that
// decides them (the model's and its external data's bytes, the arguments,
// the compiler's build), so that a pool of builders compiles each model
// once and a repeated compile returns in milliseconds.
//
//   DIR/entries/KEY/   the outputs of one compile, visible only once complete
//                      (written under DIR/tmp/, then renamed); its mtime is
//                      its last use, for LRU eviction
//   DIR/locks/KEY      flock()ed while a process looks up or fills KEY, so
//                      concurrent compiles of one model compile it once; a
//                      crashed holder's lock dies with it
//   DIR/tmp/           entries being written; ones older than an hour are
//                      left by crashed builders and removed by prune
#pragma once

#include "cuvil/support/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cuvil {

// One output of a compile: its name in the entry and where it goes.
struct CachedFile {
  std::string entryName;
  std::string outputPath;
};

struct CacheStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
};

class CompileCache {
public:
  // $XDG_CACHE_HOME/cuvil, else $HOME/.cache/cuvil; empty (no cache unless
  // --cache-dir names one) when neither is set or CUVIL_NO_CACHE is.
  static std::string defaultDirectory();

  CompileCache(std::string directory, uint64_t maxBytes);

  // The key of a compile from `arguments` (those that change the output) and
  // the bytes of `files` (the model and its external data), under this
  // compiler's build.
  static Expected<std::string> key(const std::vector<std::string> &arguments,
                                   const std::vector<std::string> &files);

  // Holds KEY's lock until destroyed (blocks while another process holds it).
  class Lock {
  public:
    Lock() = default;
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Lock &operator=(Lock &&other) noexcept;
    ~Lock();

  private:
    int fd_ = -1;
  };
  Expected<Lock> lock(const std::string &key);

  // With KEY's lock held: copies a complete entry's files to their outputs
  // (each atomically) and marks it used; false when there is no entry.
  Expected<bool> restore(const std::string &key, const std::vector<CachedFile> &files);
  // With KEY's lock held: makes the outputs KEY's entry, then evicts the
  // least recently used entries beyond the size bound.
  Status store(const std::string &key, const std::vector<CachedFile> &files);

  CacheStats stats() const;
  // Evicts least recently used entries until at most maxBytes remain, and
  // the temporaries crashed builders left.
  CacheStats prune();
  Status clear();

  const std::string &directory() const { return directory_; }

private:
  std::string directory_;
  uint64_t maxBytes_;
};

// "5G", "500M", "1024" (bytes); K, M, G, T are powers of 1024.
Expected<uint64_t> parseByteSize(const std::string &text);

} // namespace cuvil
