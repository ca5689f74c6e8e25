/// The endpoints the double serves, used for latency settings and counters.
public enum DoubleEndpoint: String, Sendable, CaseIterable {
  /// `GET /search/repositories`.
  case search
  /// `GET /repos/{owner}/{repo}/stargazers/history`.
  case history
  /// `GET /repos/{owner}/{repo}/stargazers/count`.
  case count
  /// `GET /u/{id}` avatars.
  case avatar
  /// `GET /rate_limit`.
  case rateLimit = "rate_limit"
  /// `GET /repos/{owner}/{repo}`.
  case repository
  /// `GET /users/{login}/repos`.
  case userRepos = "user_repos"
  /// `GET /user` (the signed-in user).
  case user
  /// The OAuth web flow: `/login/oauth/authorize` and the code exchange at `/login/oauth/access_token`.
  case oauth
  /// A refresh (`grant_type=refresh_token`) at `/login/oauth/access_token`.
  case tokenRefresh = "token_refresh"
  /// `DELETE /applications/{client_id}/token`.
  case revokeToken = "revoke_token"
  /// Anything else (404s).
  case other
}

/// A latency in milliseconds: fixed (`min == max`) or uniformly random in a range.
public struct LatencyRange: Sendable, Equatable, CustomStringConvertible {
  /// The smallest delay in milliseconds.
  public var min: Int
  /// The largest delay in milliseconds.
  public var max: Int

  /// The longest injectable delay: ten minutes.
  public static let ceiling = 600_000

  /// A range; bounds are ordered and clamped to 0…`ceiling`.
  public init(min: Int, max: Int) {
    let lo = Swift.min(min, max)
    let hi = Swift.max(min, max)
    self.min = Swift.min(Swift.max(0, lo), LatencyRange.ceiling)
    self.max = Swift.min(Swift.max(0, hi), LatencyRange.ceiling)
  }

  /// A fixed delay.
  public init(fixed ms: Int) { self.init(min: ms, max: ms) }

  /// Parses `"500"` or `"500..2000"` (milliseconds); nil when malformed.
  public init?(parsing text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: true)
    if text.contains("..") {
      guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, b >= 0 else {
        return nil
      }
      self.init(min: a, max: b)
    } else {
      guard let a = Int(text), a >= 0 else { return nil }
      self.init(fixed: a)
    }
  }

  /// `"500..2000"` or `"500"`.
  public var description: String { min == max ? "\(min)" : "\(min)..\(max)" }
}

/// Injected latency: a default for every endpoint plus per-endpoint overrides.
public struct LatencySpec: Sendable, Equatable {
  /// Applied to endpoints without an override; nil means no delay.
  public var all: LatencyRange?
  /// Overrides by endpoint.
  public var perEndpoint: [DoubleEndpoint: LatencyRange]
  /// Avatar latency when `all` is set and avatars have no override: avatars come from a CDN, which
  /// answers in milliseconds while the API takes its time. Nil makes avatars follow `all`.
  public var avatarCDN: LatencyRange? = LatencyRange(min: 2, max: 20)

  /// No latency anywhere.
  public init(all: LatencyRange? = nil, perEndpoint: [DoubleEndpoint: LatencyRange] = [:]) {
    self.all = all
    self.perEndpoint = perEndpoint
  }

  /// The delay range for one endpoint, if any.
  public func range(for endpoint: DoubleEndpoint) -> LatencyRange? {
    if let own = perEndpoint[endpoint] { return own }
    if endpoint == .avatar, all != nil, let avatarCDN { return avatarCDN }
    return all
  }
}

/// Fault rates in [0, 1]; each request draws once from the double's seeded generator.
public struct FaultSettings: Sendable, Equatable {
  /// Injected latency.
  public var latency = LatencySpec()
  /// Share of requests answered with a 500, 502 or 503.
  public var rate5xx: Double = 0
  /// Share of requests that never answer (until the client goes away or `hangLimit` passes).
  public var hangRate: Double = 0
  /// Share of JSON responses cut off halfway.
  public var truncatedJSONRate: Double = 0
  /// Share of requests answered with GitHub's secondary-limit 403 and `Retry-After`.
  public var secondaryLimitRate: Double = 0
  /// The `Retry-After` seconds of a secondary-limit answer.
  public var secondaryRetryAfter: Int = 60
  /// The longest a hang lasts before answering 504, so a forgotten client cannot pin a task forever.
  public var hangLimit: Duration = .seconds(300)
  /// A misbehaviour applied to every answer it concerns; nil for none.
  public var mode: HostileMode? = nil
  /// Public repositories whose star count moves before each search answer (0: counts hold still).
  /// Seven moves in ten gain 1–3 stars, the others lose one, as while a reader scrolls real GitHub.
  public var starDrift = 0

  /// No faults.
  public init() {}
}

/// The two kinds of app a reader signs in to, whose user tokens GitHub issues differently.
public enum DoubleAppKind: String, Sendable, CaseIterable {
  /// An OAuth app: `gho_` tokens that carry the scopes granted (`X-OAuth-Scopes`) and do not expire.
  case oauthApp = "oauth-app"
  /// A GitHub App with expiring user tokens (GitHub's default): `ghu_` tokens without scopes (no
  /// `X-OAuth-Scopes` header) that expire after `appTokenLifetime`, each with a single-use `ghr_`
  /// refresh token; a refresh rotates both.
  case githubApp = "github-app"

  /// The prefix of the user tokens issued to this kind of app.
  var tokenPrefix: String { self == .oauthApp ? "gho_" : "ghu_" }
}

/// Everything that shapes a double: the catalog seed and size, limits and faults.
public struct DoubleConfiguration: Sendable {
  /// The catalog seed: the same seed gives the same catalog.
  public var seed: UInt64 = 1
  /// How many repositories the catalog holds.
  public var repositoryCount = 20000
  /// How many owners (users and organisations) the catalog holds.
  public var ownerCount = 2000
  /// Whether a few repositories and owners carry XSS payloads (to test escaping).
  public var hostileFixtures = true
  /// Whether three low-star repositories also get names and one owner a login carrying XSS payloads.
  /// GitHub forbids these characters, so this is off by default (the catalog then keeps GitHub's name
  /// rules); it shows that an upstream sending them anyway cannot put script into a page.
  public var hostileNames = false
  /// When true, history `total` is the running star count at the end of each week instead of
  /// the stars created during it (GitHub's documented meaning, the default).
  public var cumulativeHistoryTotals = false
  /// The frozen "now" of the synthetic world (Unix seconds); dates and star history end here.
  public var referenceTime = 1_795_003_200
  /// The faults injected: latency, 5xx, hangs, truncated bodies, secondary limits, hostile modes.
  public var faults = FaultSettings()
  /// The `search` resource limit per minute (GitHub: 30 with a token, 10 without).
  public var searchLimitPerMinute = 30
  /// The `core` resource limit per hour (GitHub: 5000 with a token, 60 without).
  public var coreLimitPerHour = 5000
  /// The status of a primary-limit answer: 403 (GitHub's usual) or 429.
  public var rateLimitStatus = 403
  /// Base for absolute URLs in bodies and `Link`; nil derives `http://<Host header>`.
  public var publicBaseURL: String? = nil
  /// Base of `html_url` fields.
  public var htmlBaseURL = "https://github.com"
  /// Answer the way api.github.com does on the wire: gzip when the request accepts it, chunked API
  /// bodies without `Content-Length`, and an `X-GitHub-Request-Id` on every API answer.
  public var realisticWire = true
  /// Share of repositories that come back as older API eras wrote them: no `topics`, `license` or
  /// `archived` fields.
  public var legacyItemRate = 0.1
  /// Share of search pages that come back short (a third of the items) with `incomplete_results: true`,
  /// as GitHub does when a search times out on its side. Each page is short or not for good.
  public var shortPageRate = 0.03

  /// Apps the double knows, client id → client secret: OAuth apps, and GitHub Apps where `appKinds`
  /// says so. The demo OAuth app and the demo GitHub App are there by default, so `--demo` can turn
  /// sign-in on without any setup.
  public var oauthClients: [String: String] = [
    DoubleConfiguration.demoClientID: DoubleConfiguration.demoClientSecret,
    DoubleConfiguration.demoAppClientID: DoubleConfiguration.demoAppClientSecret,
  ]
  /// The kind of each client id in `oauthClients`; one not listed is an OAuth app.
  public var appKinds: [String: DoubleAppKind] = [DoubleConfiguration.demoAppClientID: .githubApp]
  /// Seconds a GitHub App's user token lives (GitHub: 8 hours, `expires_in` 28800).
  public var appTokenLifetime = 28_800
  /// Seconds a GitHub App's refresh token lives (about 6 months, as github.com answers
  /// `refresh_token_expires_in`).
  public var refreshTokenLifetime = 15_897_600
  /// Registered callback URLs by client id. A client without one accepts any http(s) `redirect_uri`
  /// at authorization (the demo's port is not known in advance); the exchange always checks that
  /// the `redirect_uri` is the one the code was issued for.
  public var oauthCallbacks: [String: String] = [:]
  /// How long an authorization code may be exchanged, in seconds (GitHub: 10 minutes).
  public var oauthCodeLifetime = 600
  /// A signed-in user's `search` limit per minute (GitHub: 30), spent by all of the user's tokens.
  public var readerSearchLimitPerMinute = 30
  /// A signed-in user's `core` limit per hour (GitHub: 5000), spent by all of the user's tokens.
  public var readerCoreLimitPerHour = 5000
  /// How many user accounts own private repositories (the first users of the catalog).
  public var privateRepositoryOwners = 3
  /// Private repositories per such user; visible only to that user's `repo`-scoped tokens.
  public var privateRepositoriesPerOwner = 2
  /// The organisation where the double's GitHub App is installed: its private repositories and members.
  public var installation = AppInstallation()
  /// What the server's token (any bearer the double did not issue) may see, and the scopes header
  /// it gets.
  public var serverTokenAccess = ServerTokenAccess.publicOnly

  /// The demo OAuth app's client id.
  public static let demoClientID = "Iv1.demo-client"
  /// The demo OAuth app's client secret (public on purpose: it only opens the double).
  public static let demoClientSecret = "demo-secret"
  /// The demo GitHub App's client id (its tokens expire after 8 hours and are refreshed).
  public static let demoAppClientID = "Iv23.demo-app"
  /// The demo GitHub App's client secret (public on purpose: it only opens the double).
  public static let demoAppClientSecret = "demo-app-secret"

  /// The kind of app `clientID` is.
  public func appKind(_ clientID: String) -> DoubleAppKind { appKinds[clientID] ?? .oauthApp }

  /// The defaults above.
  public init() {}
}
