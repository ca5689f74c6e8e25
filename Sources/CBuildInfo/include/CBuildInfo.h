#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/// The commit the binary was built from: script/package passes
/// `-Xcc -DREPOSCROLL_COMMIT=<short hash>`; other builds say "unknown".
const char *reposcroll_commit(void);

#endif
