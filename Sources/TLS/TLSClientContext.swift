import COpenSSL

/// Where a TLS client's trust and identity come from: files in PEM form.
public struct TLSClientConfiguration: Sendable, Equatable {
  /// CA certificates the server's certificate must chain to; nil trusts the system store
  /// (`/etc/ssl/certs` on Debian, from `ca-certificates`).
  public var caFile: String?
  /// The client's certificate (with any intermediates) for mutual TLS; needs `keyFile`.
  public var certificateFile: String?
  /// The private key of `certificateFile`.
  public var keyFile: String?

  /// Files as given; all nil trusts the system store and presents no client certificate.
  public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
    self.caFile = caFile
    self.certificateFile = certificateFile
    self.keyFile = keyFile
  }
}

/// The shared settings of TLS client sessions: TLS 1.2 or later, no renegotiation, the server's
/// certificate always verified (there is no switch to turn that off), and an optional client
/// certificate. Build it once and open any number of sessions from it, on any thread.
///
/// ```swift
/// let context = try TLSClientContext(TLSClientConfiguration(caFile: "/etc/redis/ca.pem"))
/// let session = try TLSClientSession(context: context, serverName: "redis.internal")
/// ```
public final class TLSClientContext: @unchecked Sendable {
  // @unchecked Sendable: the SSL_CTX is configured in init and only read afterwards; OpenSSL makes
  // SSL_new on a configured context safe from any thread (it takes a reference atomically).
  let context: OpaquePointer
  /// The settings it was made from.
  public let configuration: TLSClientConfiguration

  /// Loads the trust store and the client identity; a file that cannot be read or parsed, a key
  /// that does not match its certificate, or half an identity throws `.configuration`.
  public init(_ configuration: TLSClientConfiguration) throws(TLSError) {
    self.configuration = configuration
    OpenSSLErrors.clear()
    guard let context = SSL_CTX_new(TLS_client_method()) else {
      throw TLSError(.configuration, OpenSSLErrors.take(or: "cannot create a TLS context"))
    }
    self.context = context
    guard copenssl_ctx_require_tls12(context) == 1 else {
      throw TLSError(.configuration, OpenSSLErrors.take(or: "cannot require TLS 1.2"))
    }
    copenssl_ctx_no_renegotiation(context)
    copenssl_ctx_partial_writes(context)
    SSL_CTX_set_verify(context, COPENSSL_VERIFY_PEER, nil)
    if let caFile = configuration.caFile {
      guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
        throw TLSError(
          .configuration, "cannot load CA file \(caFile): \(OpenSSLErrors.take(or: "unreadable"))")
      }
    } else if SSL_CTX_set_default_verify_paths(context) != 1 {
      throw TLSError(
        .configuration, "cannot load the system CA store: \(OpenSSLErrors.take(or: "unreadable"))")
    }
    switch (configuration.certificateFile, configuration.keyFile) {
    case (nil, nil):
      break
    case (let certificate?, let key?):
      guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
        throw TLSError(
          .configuration, "cannot load certificate \(certificate): \(OpenSSLErrors.take(or: "unreadable"))")
      }
      guard SSL_CTX_use_PrivateKey_file(context, key, COPENSSL_FILETYPE_PEM) == 1 else {
        throw TLSError(.configuration, "cannot load key \(key): \(OpenSSLErrors.take(or: "unreadable"))")
      }
      guard SSL_CTX_check_private_key(context) == 1 else {
        throw TLSError(
          .configuration,
          "key \(key) does not match certificate \(certificate): \(OpenSSLErrors.take(or: "mismatch"))")
      }
    case (_?, nil):
      throw TLSError(.configuration, "a client certificate needs its key file")
    case (nil, _?):
      throw TLSError(.configuration, "a client key needs its certificate file")
    }
  }

  deinit { SSL_CTX_free(context) }
}
