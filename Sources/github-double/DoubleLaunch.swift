import CommandLineOptions
import GitHubDouble

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `github-double` is started with: where it listens and the double's configuration. Rates set
/// by flag win over `--tidy`, whatever their order.
struct DoubleLaunch: Sendable {
  var host = "127.0.0.1"
  var port = 8081
  var configuration = DoubleConfiguration()
  var tidy = false
  var legacyRate: Double?
  var shortPageRate: Double?
  /// Another OAuth app to accept besides the demo one: its id, and its secret read from a file.
  var oauthClientID: String?
  var oauthClientSecret: String?
  var oauthCallback: String?
  /// The kind of that app (an OAuth app unless told).
  var oauthClientKind = DoubleAppKind.oauthApp

  /// The configuration with `--tidy` and the rate flags applied.
  var finished: DoubleConfiguration {
    var c = configuration
    if tidy {
      c.realisticWire = false
      c.legacyItemRate = 0
      c.shortPageRate = 0
      c.faults.latency.avatarCDN = nil
    }
    if let legacyRate { c.legacyItemRate = legacyRate }
    if let shortPageRate { c.shortPageRate = shortPageRate }
    if let oauthClientID {
      c.oauthClients[oauthClientID] = oauthClientSecret ?? ""
      if let oauthCallback { c.oauthCallbacks[oauthClientID] = oauthCallback }
      c.appKinds[oauthClientID] = oauthClientKind
    }
    return c
  }

  /// The first line of a small file (a secret), or an error naming the file.
  static func secret(fromFile path: String) throws(OptionError) -> String {
    // The one reader for secret files (size bound, empty refused); the secret is its first line.
    let text = try SecretSource.read(file: path)
    let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
    guard !line.isEmpty else { throw OptionError("\(path) holds no secret") }
    return line
  }

  /// The `T` whose raw value is `text`, else an error saying `message`.
  static func choice<T: RawRepresentable>(_ text: String, else message: String) throws(OptionError) -> T
  where T.RawValue == String {
    guard let value = T(rawValue: text) else { throw OptionError(message) }
    return value
  }

  static func latency(_ text: String) throws(OptionError) -> LatencyRange {
    guard let range = LatencyRange(parsing: text) else {
      throw OptionError("expected MS or A..B, got \(text)")
    }
    return range
  }

  static func share(_ text: String) throws(OptionError) -> Double { try OptionValue.double(text, in: 0...1) }

  static let options: [Option<DoubleLaunch>] =
    [
      Option("--host", env: "DOUBLE_HOST", value: "H", help: "bind address (127.0.0.1)") { $0.host = $1 },
      .int("--port", env: "DOUBLE_PORT", help: "port, 0 = any free one (8081)", in: 0...65535, \.port),
      Option("--seed", env: "DOUBLE_SEED", value: "S", help: "catalog seed (1)") {
        guard let seed = UInt64($1) else { throw OptionError("expected a non-negative integer, got \($1)") }
        $0.configuration.seed = seed
      },
      .int(
        "--repos", env: "DOUBLE_REPOS", help: "repositories in the catalog (20000)", in: 0...10_000_000,
        \.configuration.repositoryCount),
      .int(
        "--owners", env: "DOUBLE_OWNERS", help: "owners in the catalog (2000)", in: 1...10_000_000,
        \.configuration.ownerCount),
      Option(
        "--latency", env: "DOUBLE_LATENCY", value: "MS|A..B",
        help:
          "latency for every endpoint, ms; avatars then take 2..20 ms, like a CDN, unless --latency-avatar is given (0)"
      ) { $0.configuration.faults.latency.all = try latency($1) },
    ]
    + DoubleEndpoint.allCases.map { endpoint in
      Option(
        "--latency-" + endpoint.rawValue, env: "DOUBLE_LATENCY_" + endpoint.rawValue.uppercased(),
        value: "MS|A..B", help: "latency for \(endpoint.rawValue) answers only"
      ) { $0.configuration.faults.latency.perEndpoint[endpoint] = try latency($1) }
    }
    + [
      .double(
        "--fault-rate", env: "DOUBLE_FAULT_RATE", help: "share of 5xx answers, 0...1 (0)", in: 0...1,
        \.configuration.faults.rate5xx),
      .double(
        "--hang-rate", env: "DOUBLE_HANG_RATE",
        help: "share of requests that hang until the client leaves (0)",
        in: 0...1, \.configuration.faults.hangRate),
      .double(
        "--truncated-rate", env: "DOUBLE_TRUNCATED_RATE", help: "share of JSON bodies cut in half (0)",
        in: 0...1,
        \.configuration.faults.truncatedJSONRate),
      .double(
        "--secondary-rate", env: "DOUBLE_SECONDARY_RATE",
        help: "share of secondary-limit 403s with Retry-After (0)",
        in: 0...1, \.configuration.faults.secondaryLimitRate),
      .int(
        "--star-drift", env: "DOUBLE_STAR_DRIFT",
        help: "repositories whose star count moves before each search answer (0)", in: 0...10_000,
        \.configuration.faults.starDrift),
      .int(
        "--search-limit", env: "DOUBLE_SEARCH_LIMIT", help: "search requests per minute (30)",
        in: 0...Int(Int32.max), \.configuration.searchLimitPerMinute),
      .int(
        "--core-limit", env: "DOUBLE_CORE_LIMIT", help: "core requests per hour (5000)",
        in: 0...Int(Int32.max),
        \.configuration.coreLimitPerHour),
      Option(
        "--limit-status", env: "DOUBLE_LIMIT_STATUS", value: "403|429",
        help: "status of an exhausted limit (403)"
      ) {
        let status = try OptionValue.int($1, in: 403...429)
        guard status == 403 || status == 429 else { throw OptionError("expected 403 or 429, got \($1)") }
        $0.configuration.rateLimitStatus = status
      },
      Option("--mode", env: "DOUBLE_MODE", value: "NAME", help: "misbehave on purpose; modes below (none)") {
        guard $1 != "none" else {
          $0.configuration.faults.mode = nil
          return
        }
        $0.configuration.faults.mode = try choice($1, else: "unknown mode \($1)")
      },
      .bool(
        "--tidy", env: "DOUBLE_TIDY", value: nil,
        help: "plain answers: no gzip, chunking or request ids, no legacy items or short pages (off)", \.tidy),
      Option(
        "--legacy-rate", env: "DOUBLE_LEGACY_RATE", value: "R",
        help: "share of items without topics, license and archived (0.1)"
      ) { $0.legacyRate = try share($1) },
      Option(
        "--short-page-rate", env: "DOUBLE_SHORT_PAGE_RATE", value: "R",
        help: "share of short search pages with incomplete_results (0.03)"
      ) { $0.shortPageRate = try share($1) },
      Option(
        "--public-url", env: "DOUBLE_PUBLIC_URL", value: "URL",
        help: "base for absolute URLs in bodies and Link (from Host)"
      ) { $0.configuration.publicBaseURL = try OptionValue.url($1) },
      Option("--no-hostile", help: "leave out the XSS fixtures (off)") {
        $0.configuration.hostileFixtures = !(try OptionValue.bool($1))
      },
      .bool(
        "--hostile", env: "DOUBLE_HOSTILE", help: "include the XSS fixtures (true)",
        \.configuration.hostileFixtures),
      .bool(
        "--hostile-names", env: "DOUBLE_HOSTILE_NAMES", value: nil,
        help: "also give a few repositories and one owner XSS payload names (off)",
        \.configuration.hostileNames),
      Option(
        "--oauth-client-id", env: "DOUBLE_OAUTH_CLIENT_ID", value: "ID",
        help:
          "an app to accept besides the demo OAuth app (Iv1.demo-client / demo-secret) and GitHub App (Iv23.demo-app / demo-app-secret)"
      ) { $0.oauthClientID = $1 },
      Option(
        "--oauth-client-kind", env: "DOUBLE_OAUTH_CLIENT_KIND", value: "oauth-app|github-app",
        help:
          "that app's kind: an OAuth app's gho_ tokens, or a GitHub App's expiring ghu_ tokens (oauth-app)"
      ) { $0.oauthClientKind = try choice($1, else: "expected oauth-app or github-app") },
      .int(
        "--app-token-lifetime", env: "DOUBLE_APP_TOKEN_LIFETIME",
        help: "seconds a GitHub App's user token lives (28800)", in: 1...Int(Int32.max),
        \.configuration.appTokenLifetime),
      .int(
        "--refresh-token-lifetime", env: "DOUBLE_REFRESH_TOKEN_LIFETIME",
        help: "seconds a GitHub App's refresh token lives (15897600)", in: 1...Int(Int32.max),
        \.configuration.refreshTokenLifetime),
      Option(
        "--oauth-client-secret-file", env: "DOUBLE_OAUTH_CLIENT_SECRET_FILE", value: "PATH",
        help: "file whose first line is that app's client secret"
      ) { $0.oauthClientSecret = try secret(fromFile: $1) },
      Option(
        "--oauth-callback", env: "DOUBLE_OAUTH_CALLBACK", value: "URL",
        help: "that app's registered callback URL (any http(s) redirect_uri when unset)"
      ) { $0.oauthCallback = try OptionValue.url($1) },
      .int(
        "--reader-search-limit", env: "DOUBLE_READER_SEARCH_LIMIT",
        help: "search requests per minute for each signed-in user (30)", in: 0...Int(Int32.max),
        \.configuration.readerSearchLimitPerMinute),
      .int(
        "--private-owners", env: "DOUBLE_PRIVATE_OWNERS",
        help: "users who own 2 private repositories each, seen only with their repo-scoped token (3)",
        in: 0...1000,
        \.configuration.privateRepositoryOwners),
      .int(
        "--installed-private-repos", env: "DOUBLE_INSTALLED_PRIVATE_REPOS",
        help:
          "private repositories (vault-…) of the organisation where the GitHub App is installed, seen by its members (4)",
        in: 0...50, \.configuration.installation.privateRepositories),
      Option(
        "--installed-members", env: "DOUBLE_INSTALLED_MEMBERS", value: "L1,L2",
        help: "logins of that organisation's members (mona,octo-member)"
      ) { $0.configuration.installation.members = $1.split(separator: ",").map(String.init) },
      Option(
        "--server-token", env: "DOUBLE_SERVER_TOKEN", value: "public|repo|fine-grained",
        help:
          "what a token the double did not issue sees: public data (X-OAuth-Scopes empty), or also the installed organisation's private repositories with the repo scope, or with no scopes header (public)"
      ) {
        $0.configuration.serverTokenAccess = try choice($1, else: "expected public, repo or fine-grained")
      },
    ]

  static let table = OptionTable(
    program: "github-double",
    summary: "a GitHub REST double that behaves like api.github.com and misbehaves on demand.",
    options: options,
    epilogue: [
      "Control API on the same port: GET /_double/counters, POST /_double/reset,",
      "POST /_double/faults?rate5xx=0.1&latency=500..2000, POST /_double/ratelimit?resource=search&remaining=0&reset=T,",
      "GET /_double/requests[?endpoint=search] (arrival and finish times, ms, status and identity of recent requests),",
      "OAuth: GET/POST /login/oauth/authorize (a consent form), POST /login/oauth/access_token (a code, or",
      "grant_type=refresh_token for a GitHub App), GET /user, DELETE /applications/{client_id}/token;",
      "POST /_double/oauth/revoke?login=L, POST /_double/oauth/expire-codes, GET /_double/oauth/tokens?login=L,",
      "POST /_double/oauth/advance?seconds=N (moves the clock tokens expire by: 28800 expires an App's tokens),",
      "POST /_double/ratelimit?…&login=L (a signed-in user's own window).",
      "GET /_double/installation (the installed organisation: its login, members and private repositories).",
      "POST /_double/faults?mode=NAME (mode=none clears it). Modes, seeded by --seed and the request target:",
    ] + modeList())

  /// The hostile modes by class, one line each.
  static func modeList() -> [String] {
    var categories: [String] = []
    for mode in HostileMode.allCases where !categories.contains(mode.category) {
      categories.append(mode.category)
    }
    return categories.map { category in
      "    \(category): "
        + HostileMode.allCases.filter { $0.category == category }.map(\.rawValue).joined(separator: ", ")
    }
  }
}
