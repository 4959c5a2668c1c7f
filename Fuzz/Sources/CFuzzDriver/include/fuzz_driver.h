#ifndef PASSTAP_FUZZ_DRIVER_H
#define PASSTAP_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program with its own main (libclang_rt.fuzzer, LLVM 11 and later).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
