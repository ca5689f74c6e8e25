#include "CBuildInfo.h"

// A bare token on the command line (no shell quoting to get wrong), turned into a string here.
#define REPOSCROLL_STRING2(x) #x
#define REPOSCROLL_STRING(x) REPOSCROLL_STRING2(x)

const char *reposcroll_commit(void) {
#ifdef REPOSCROLL_COMMIT
  return REPOSCROLL_STRING(REPOSCROLL_COMMIT);
#else
  return "unknown";
#endif
}
