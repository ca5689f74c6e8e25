// OpenSSL for the TLS target, with small functions for the macros Swift cannot call (they expand
// to SSL_ctrl/SSL_CTX_ctrl calls with casts, or to bit expressions the importer drops).
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// Refuses every protocol below TLS 1.2.
static inline int copenssl_ctx_require_tls12(SSL_CTX *ctx) {
  return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// Turns renegotiation off (TLS 1.2 has it; TLS 1.3 has none), and compression (CRIME).
static inline void copenssl_ctx_no_renegotiation(SSL_CTX *ctx) {
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
}

/// Partial writes (SSL_write returns after a record, not the whole buffer), and a write retried
/// from a buffer that moved: the caller's array may be reallocated between retries.
static inline void copenssl_ctx_partial_writes(SSL_CTX *ctx) {
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// Sends `name` as SNI.
static inline int copenssl_set_server_name(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// A memory BIO that reports "retry" rather than end of file when empty, as a socket that would block.
static inline BIO *copenssl_memory_bio(void) {
  BIO *bio = BIO_new(BIO_s_mem());
  if (bio != NULL) BIO_set_mem_eof_return(bio, -1);
  return bio;
}

/// Bytes waiting in a BIO.
static inline size_t copenssl_bio_pending(BIO *bio) { return BIO_ctrl_pending(bio); }

static const int COPENSSL_ERROR_NONE = SSL_ERROR_NONE;
static const int COPENSSL_ERROR_SSL = SSL_ERROR_SSL;
static const int COPENSSL_ERROR_WANT_READ = SSL_ERROR_WANT_READ;
static const int COPENSSL_ERROR_WANT_WRITE = SSL_ERROR_WANT_WRITE;
static const int COPENSSL_ERROR_SYSCALL = SSL_ERROR_SYSCALL;
static const int COPENSSL_ERROR_ZERO_RETURN = SSL_ERROR_ZERO_RETURN;
static const int COPENSSL_FILETYPE_PEM = SSL_FILETYPE_PEM;
static const int COPENSSL_VERIFY_PEER = SSL_VERIFY_PEER;
static const long COPENSSL_X509_V_OK = X509_V_OK;
static const unsigned int COPENSSL_NO_PARTIAL_WILDCARDS = X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;

#endif
