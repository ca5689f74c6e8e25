// zlib's init entry points are macros that pass ZLIB_VERSION and sizeof(z_stream); Swift cannot
// expand them, so these wrappers do it here.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// Starts a gzip-wrapped deflate stream (window bits 15 + 16 selects the gzip header and trailer).
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
  return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// Starts an inflate stream that accepts only the gzip wrapper.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
  return inflateInit2(stream, 15 + 16);
}

#endif
