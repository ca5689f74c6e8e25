import CCurl

extension ClientError {
  /// The typed error for a failed transfer; `detail` is libcurl's message for this transfer.
  static func from(_ code: CURLcode, detail: String, limit: Int, exceededLimit: Bool) -> ClientError {
    let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    if exceededLimit { return .tooLarge(limit: limit) }
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .cannotResolve(message)
    case CURLE_COULDNT_CONNECT: return .cannotConnect(message)
    case CURLE_OPERATION_TIMEDOUT: return .timedOut
    case CURLE_FILESIZE_EXCEEDED: return .tooLarge(limit: limit)
    case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return .invalidURL(message)
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
      CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
      CURLE_SSL_ENGINE_INITFAILED,
      CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
      CURLE_SSL_PINNEDPUBKEYNOTMATCH,
      CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
      return .tls(message)
    default: return .other(message)
    }
  }
}
