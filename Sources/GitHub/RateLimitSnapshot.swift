/// The last known state of one rate-limit resource.
public struct RateLimitSnapshot: Sendable, Equatable {
  /// The bucket, e.g. `.search` or `.core`.
  public var resource: RateLimitResource
  /// Requests allowed per window.
  public var limit: Int
  /// Requests left in this window, as tracked locally (in-flight requests counted).
  public var remaining: Int
  /// When the window resets, Unix seconds.
  public var reset: Int
  /// Until when a secondary limit blocks this resource, Unix seconds, if one does.
  public var secondaryUntil: Int?

  /// A snapshot from its parts.
  public init(resource: RateLimitResource, limit: Int, remaining: Int, reset: Int, secondaryUntil: Int? = nil)
  {
    self.resource = resource
    self.limit = limit
    self.remaining = remaining
    self.reset = reset
    self.secondaryUntil = secondaryUntil
  }
}
