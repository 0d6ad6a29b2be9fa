// libFuzzer's driver, for `modelkit-sync-fuzz` to hand its `main` to: SwiftPM gives every
// executable a `main` of its own, which takes precedence over libFuzzer's.
//
// Declared weak, so that a build without `-sanitize=fuzzer` links too: there it is null, and
// the fuzz target replays inputs instead.

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size)) __attribute__((weak));

/// Whether libFuzzer is linked in.
static inline int modelkit_libfuzzer_is_linked(void) { return LLVMFuzzerRunDriver != NULL; }
