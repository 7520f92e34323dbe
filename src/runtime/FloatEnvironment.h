#ifndef CUVIL_RUNTIME_FLOATENVIRONMENT_H
#define CUVIL_RUNTIME_FLOATENVIRONMENT_H

#include <cstdint>

namespace cuvil::runtime {

/// Makes the calling thread treat subnormal floats as zero, as operands and as
/// results (x86: MXCSR DAZ and FTZ; AArch64: FPCR.FZ).
///
/// Every thread that runs kernels calls it. Intel cores take a microcode assist
/// of about a hundred cycles for each subnormal operand or result, and
/// ordinary models produce them: a softmax over masked attention positions
/// leaves probabilities near 1e-40, and the probabilities x V GEMM of
/// BERT-base then ran 20x slower than with normal numbers. A flushed value
/// differs from the exact one by less than 1.2e-38.
void flushSubnormalsToZero();

/// The calling thread's floating-point control word (MXCSR, FPCR), to put back
/// what a library's caller had after a run flushed on its thread.
uint64_t floatControl();
void setFloatControl(uint64_t control);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_FLOATENVIRONMENT_H
