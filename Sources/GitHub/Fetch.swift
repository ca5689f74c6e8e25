import CurlClient
import HTTP

/// One cacheable GET: where to send it and how to read the answer into a `Value`.
struct Fetch<Value: CachedPayload>: Sendable {
  /// The full URL; also the cache and coalescing key.
  var key: String
  var endpoint: GitHubEndpoint
  /// The rate-limit bucket; nil for the avatar host.
  var resource: RateLimitResource?
  var request: ClientRequest
  var ttl: Double
  var decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Value
}
