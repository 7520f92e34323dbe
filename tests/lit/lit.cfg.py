# lit configuration for Cuvil's textual-IR and command-line tests.
import os
import sys

import lit.formats

config.name = "cuvil"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cir", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cuvil_binary_dir, "tests", "lit")
config.substitutions.append(("%cuvil", config.cuvil_tool))
# Every compile runs: a test checks what the compiler prints, not what the
# compile cache restores (tests of the cache give --cache-dir).
config.environment["CUVIL_NO_CACHE"] = "1"
config.substitutions.append(("%models", os.path.join(config.cuvil_source_dir, "models")))
config.substitutions.append(("%root", config.cuvil_source_dir))
config.substitutions.append(("%python", sys.executable))
config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, config.environment.get("PATH", "")])
