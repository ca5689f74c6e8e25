// libdeflate: fast whole-buffer deflate/gzip (Debian libdeflate-dev).
#ifndef CLIBDEFLATE_SHIM_H
#define CLIBDEFLATE_SHIM_H

#include <libdeflate.h>

#endif
