#ifndef CSODIUM_SHIM_H
#define CSODIUM_SHIM_H
#include <sodium.h>
#include <sys/random.h>
#include <errno.h>

/// getrandom(2) with no flags: blocks only until the kernel's pool is first initialised. Returns the
/// byte count or -1 with errno (Glibc's Swift overlay does not declare getrandom).
static inline long csodium_getrandom(void *buffer, size_t length) {
  return (long)getrandom(buffer, length, 0);
}

static inline int csodium_errno(void) { return errno; }
#endif
