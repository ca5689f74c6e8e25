import CurlClient

/// Settings for `GitHubClient`. The token is redacted from every description and mirror.
public struct GitHubConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// Base URL of the REST API, without a trailing slash.
  public var apiBase = "https://api.github.com"
  /// Base URL of the avatar host; the only host avatar bytes are fetched from.
  public var avatarBase = "https://avatars.githubusercontent.com"
  /// Bearer token sent to the API host only; never logged or rendered.
  public var token: String? = nil
  /// `User-Agent` sent with every request (GitHub answers 403 without one).
  public var userAgent = CurlClientConfiguration.defaultUserAgent
  /// How long a search page is served from the cache.
  public var searchTTL: Duration = .seconds(60)
  /// How long star history and counts are served before revalidation.
  public var historyTTL: Duration = .seconds(600)
  /// How long avatars are served before revalidation.
  public var avatarTTL: Duration = .seconds(86400)
  /// Upper bound of the response cache, in bytes.
  public var cacheBytes = 16 * 1024 * 1024
  /// Largest avatar accepted, in bytes.
  public var maxAvatarBytes = 1024 * 1024
  /// Receives one line per notable upstream event (e.g. malformed items skipped on a page); the
  /// token is redacted from it.
  public var eventLog: (@Sendable (String) -> Void)? = nil

  /// The defaults above.
  public init() {}

  /// A summary with the token redacted.
  public var description: String {
    "GitHubConfiguration(apiBase: \(apiBase), avatarBase: \(avatarBase), token: "
      + (token == nil ? "none" : "[redacted]") + ", userAgent: \(userAgent))"
  }

  /// Same as `description`, so `debugPrint` cannot leak the token either.
  public var debugDescription: String { description }

  /// A mirror without the token, so `dump` cannot leak it.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "apiBase": apiBase, "avatarBase": avatarBase, "token": token == nil ? "none" : "[redacted]",
        "userAgent": userAgent, "searchTTL": searchTTL, "historyTTL": historyTTL, "avatarTTL": avatarTTL,
        "cacheBytes": cacheBytes, "maxAvatarBytes": maxAvatarBytes,
      ])
  }
}

extension Duration {
  /// The duration in seconds as a Double, for comparisons with the injected clock.
  var seconds: Double {
    let c = components
    return Double(c.seconds) + Double(c.attoseconds) / 1e18
  }
}
