import HTTP

/// Turns a non-success GitHub status into a typed error (pure, so recordings can test it).
enum ResponseClassifier {
  /// Seconds to wait when GitHub refuses without saying until when.
  static let defaultBackoff = 60
  /// The longest `retry-after` believed (GitHub asks for a minute or a few).
  static let maxRetryAfter = 900

  /// The error for `status`, or nil for 2xx and 304. `resource` is the rate-limit bucket of the
  /// endpoint (nil for the avatar host, which has no GitHub rate limit).
  static func error(
    status: Int, headers: HTTPHeaders, body: [UInt8], resource: RateLimitResource?, now: Double,
    text: UpstreamText = .tokenless
  ) -> GitHubError? {
    switch status {
    case 200..<300, 304: return nil
    case 404: return .notFound
    case 422: return .validation(ResponseDecoding.errorMessage(body, text: text))
    case 403, 429:
      let message = ResponseDecoding.errorMessage(body, text: text)
      if let resource {
        let limits = RateLimitHeaders.parse(headers)
        let nowSeconds = Int(now)
        // The endpoint's bucket, not the header's, so later local refusals name the same resource.
        let name = resource
        if limits?.remaining == 0 {
          return .rateLimited(
            resource: name, until: limits?.reset ?? nowSeconds + defaultBackoff, secondary: false)
        }
        let lowered = message.lowercased()
        if let retryAfter = limits?.retryAfter {
          return .rateLimited(
            resource: name, until: nowSeconds + min(retryAfter, maxRetryAfter), secondary: true)
        }
        if lowered.contains("secondary rate limit") || lowered.contains("abuse") || status == 429 {
          return .rateLimited(resource: name, until: nowSeconds + defaultBackoff, secondary: true)
        }
      }
      return status == 429 ? .upstream(status: 429) : .forbidden(message)
    case 401: return .forbidden(ResponseDecoding.errorMessage(body, text: text))
    default: return .upstream(status: status)
    }
  }
}
