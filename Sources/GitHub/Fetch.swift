import CurlClient
import HTTP

/// What a cached or fetched response decodes to.
enum Payload: Sendable {
  case search(SearchPage)
  case history(StarHistory)
  case count(Int)
  case avatar(Avatar)
}

/// A payload and whether it came from an expired entry after an upstream failure.
struct Delivered: Sendable {
  var payload: Payload
  var stale: Bool
}

/// One cacheable GET: where to send it and how to read the answer.
struct Fetch: Sendable {
  /// The full URL; also the cache and coalescing key.
  var key: String
  var endpoint: GitHubEndpoint
  /// The rate-limit bucket; nil for the avatar host.
  var resource: RateLimitResource?
  var request: ClientRequest
  var ttl: Double
  var decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Payload
}
