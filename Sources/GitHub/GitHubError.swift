/// A GitHub rate-limit bucket. Search and core are counted separately; a bucket this client does
/// not know by name (GitHub adds them, e.g. `code_search`) is kept by its name, so it is still tracked.
public enum RateLimitResource: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Most REST endpoints (stargazer history).
  case core
  /// `/search/*`.
  case search
  /// Any other bucket, by the name GitHub gives it (lower-cased).
  case other(String)

  /// The bucket GitHub names `name` (as in `x-ratelimit-resource`).
  public init(name: String) {
    switch name {
    case "core": self = .core
    case "search": self = .search
    default: self = .other(name)
    }
  }

  /// GitHub's name for the bucket.
  public var name: String {
    switch self {
    case .core: return "core"
    case .search: return "search"
    case .other(let name): return name
    }
  }

  /// The resource's name, as GitHub spells it in `x-ratelimit-resource`.
  public var description: String { name }

  /// Ordered by name, as snapshots and metrics list them.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }
}

/// Why a GitHub call failed. Messages never contain the token.
public enum GitHubError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The resource is exhausted until `until` (Unix seconds); `secondary` for abuse/secondary limits.
  case rateLimited(resource: RateLimitResource, until: Int, secondary: Bool)
  /// GitHub's 422 message, e.g. "Only the first 1000 search results are available".
  case validation(String)
  /// 404: the repository or user does not exist (or is not visible).
  case notFound
  /// A 403 that is not a rate limit (or a 401 to the server's token), with GitHub's message.
  case forbidden(String)
  /// GitHub answered 401 to a signed-in reader's token (revoked, expired, or the eleventh sign-in
  /// revoked the oldest): the reader's session should end and the reader go on anonymously.
  case unauthorized
  /// An unexpected status: 5xx, or a status this layer does not accept (e.g. a redirect).
  case upstream(status: Int)
  /// The transport failed before a response arrived.
  case network(String)
  /// The response body was not what GitHub documents (bad JSON, wrong avatar type or size).
  case decoding(String)
  /// A caller argument was refused before any request (bad name, page, size, host).
  case invalidInput(String)
  /// The caller's task was cancelled (its client left) before the answer arrived.
  case cancelled

  /// A short human-readable explanation.
  public var description: String {
    switch self {
    case .rateLimited(let resource, let until, let secondary):
      return "GitHub \(secondary ? "secondary " : "")rate limit for \(resource) until \(until)"
    case .validation(let message): return "GitHub validation failed: \(message)"
    case .notFound: return "not found on GitHub"
    case .forbidden(let message): return "GitHub refused the request: \(message)"
    case .unauthorized: return "GitHub no longer accepts the reader's token"
    case .upstream(let status): return "GitHub answered \(status)"
    case .network(let message): return "network error: \(message)"
    case .decoding(let message): return "unexpected response: \(message)"
    case .invalidInput(let message): return "invalid input: \(message)"
    case .cancelled: return "cancelled"
    }
  }
}
