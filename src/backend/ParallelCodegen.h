// Optimises and compiles a module as independent parts on several threads.
// The O3 pipeline and instruction selection take nine tenths of a compile
// (ssdlite320: 29 s and 21 s of 53), and each ISA variant's run functions,
// tasks and specialisations never call another variant's, nor one task's
// specialisation another's: the module splits along those lines with
// nothing to share but symbols.
//
//   units  = the builder's functions (roots), joined where one calls
//            another (a task and the specialisation it calls: one unit, so
//            the inliner sees what it saw in the whole module)
//   parts  = runs of the units in order of their specialisation's name
//            (kernel, variant: the units that share tiles stay together),
//            of about equal size with the tiles inlined; their count
//            follows the module's size only, so the output does not depend
//            on the machine or on --jobs
//   a part = its units, a copy of every library function and constant they
//            reach (internal to it), declarations of the rest; a root
//            another part refers to (a task's address, a run function)
//            becomes a hidden global
// The module is written once as bitcode; each thread reads it lazily into
// its own LLVM context, keeps its part, and optimises and emits it with its
// own target machine as its own object file.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/support/Status.h"

#include <llvm/IR/Module.h>
#include <set>
#include <string>
#include <vector>

namespace cuvil {

struct ParallelCodegenStats {
  size_t parts = 0;
  unsigned threads = 0;
  double optimiseSeconds = 0; // summed over the parts (thread time)
  double codegenSeconds = 0;
};

// Splits `module` (whose roots are `roots`; applyTargetAttributes already
// run) and writes one object per part, `objectPrefix`.N.o, on up to `jobs`
// threads; returns the object paths.
Expected<std::vector<std::string>> compileInParts(llvm::Module &module,
                                                  const std::set<const llvm::Function *> &roots,
                                                  const TargetConfig &target,
                                                  const std::string &objectPrefix, unsigned jobs,
                                                  ParallelCodegenStats &stats);

} // namespace cuvil
