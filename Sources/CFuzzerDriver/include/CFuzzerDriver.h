#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have their own `main`: parses libFuzzer's
/// flags from `argv` and fuzzes `callback`. Defined only when linked with
/// `-sanitize=fuzzer`; `ubiq-fuzz` calls it only in such builds (`UBIQ_FUZZING`).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
