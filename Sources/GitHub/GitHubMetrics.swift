/// The kinds of upstream call, for metrics.
public enum GitHubEndpoint: String, Sendable, Hashable, CaseIterable {
  /// `GET /search/repositories`.
  case search
  /// `GET /repos/{owner}/{repo}/stargazers/history`.
  case history
  /// `GET {avatarBase}/u/{id}`.
  case avatar
  /// `GET /repos/{owner}/{repo}`, asked for a repository's visibility only.
  case repository
}

/// Counters of the client's work since it was created.
public struct GitHubMetrics: Sendable, Equatable {
  /// Upstream calls by endpoint, then by HTTP status; status 0 counts transport failures.
  public var upstreamCalls: [GitHubEndpoint: [Int: Int]] = [:]
  /// Requests answered from a fresh cache entry.
  public var cacheHits = 0
  /// Requests that needed an upstream call (or were refused locally).
  public var cacheMisses = 0
  /// Requests that joined an identical request already in flight.
  public var coalesced = 0
  /// Expired entries confirmed by a 304.
  public var revalidated = 0
  /// Expired entries served because the upstream call failed.
  public var staleServed = 0
  /// Requests refused locally because a rate limit was exhausted.
  public var rateLimitedLocally = 0
  /// Malformed items (search) or weeks (history) skipped, by endpoint.
  public var itemsSkipped: [GitHubEndpoint: Int] = [:]
  /// Upstream calls cancelled because every caller waiting for them had left.
  public var cancelledUpstream = 0
  /// Requests answered from a value another instance stored in the shared store.
  public var sharedHits = 0
  /// Requests that waited for another instance fetching the same value.
  public var sharedWaits = 0
  /// Shared values refused as malformed or foreign (treated as misses).
  public var sharedRejected = 0
  /// Non-public items an anonymous reader's answer held (fetched with the server's token) and that
  /// were left out, plus star histories of non-public repositories refused to anonymous readers.
  public var privateWithheld = 0
  /// Answers kept as their fetcher's own (in this process's memory only) because they held a
  /// non-public item or might have.
  public var ownAnswers = 0
  /// Bytes the cache accounts for now.
  public var cacheBytes = 0
  /// Entries in the cache now.
  public var cacheEntries = 0

  /// Empty counters.
  public init() {}

  /// All upstream calls to `endpoint`, whatever their status.
  public func calls(_ endpoint: GitHubEndpoint) -> Int {
    upstreamCalls[endpoint, default: [:]].values.reduce(0, +)
  }

  /// Upstream calls to `endpoint` that answered `status`.
  public func calls(_ endpoint: GitHubEndpoint, status: Int) -> Int {
    upstreamCalls[endpoint]?[status] ?? 0
  }

  /// All upstream calls.
  public var totalUpstreamCalls: Int { GitHubEndpoint.allCases.reduce(0) { $0 + calls($1) } }

  mutating func recordCall(_ endpoint: GitHubEndpoint, status: Int) {
    upstreamCalls[endpoint, default: [:]][status, default: 0] += 1
  }
}
