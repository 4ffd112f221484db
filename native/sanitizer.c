/*
 * Sanitizer build only (scripts/build-native.mjs with TSCODEX_NATIVE_BUILD=sanitize): where
 * AddressSanitizer and UndefinedBehaviorSanitizer report, and how they behave. Reports go to
 * the file named at build time, opened before the helper sandboxes itself (Landlock would
 * refuse the open later), so CI finds every report whatever the sandboxed command printed.
 * Where the file cannot be opened (a read-only mount inside bubblewrap), reports go to stderr.
 */
#ifdef TSCODEX_SANITIZER_LOG
#define _GNU_SOURCE
#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <stdint.h>

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

/* Exit code 86 marks a sanitizer failure apart from the helper's own codes. */
const char *__asan_default_options(void) { return "exitcode=86:detect_leaks=" TSCODEX_DETECT_LEAKS; }
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1:exitcode=86"; }

__attribute__((constructor)) static void open_sanitizer_report(void) {
  int fd = open(TSCODEX_SANITIZER_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) __sanitizer_set_report_fd((void *)(intptr_t)fd);
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int tscodex_no_sanitizer;
#endif
