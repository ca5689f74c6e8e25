import CommandLineOptions
import HTTP

/// Everything `repo-scroll` can be configured with. Each setting comes from a CLI flag, then an
/// environment variable, then a default; `--help` prints the table built from `AppConfiguration.options`.
public struct AppConfiguration: Sendable {
  /// Interface to listen on.
  public var host = "127.0.0.1"
  /// Port to listen on (0 picks a free one).
  public var port = 8080
  /// Base URL of the GitHub REST API.
  public var githubAPI = "https://api.github.com"
  /// Base URL of the avatar host; the only host avatars are fetched from.
  public var avatarBase = "https://avatars.githubusercontent.com"
  /// GitHub token, from the environment only (a flag would show in `ps`). Never logged or rendered.
  public var githubToken: String?
  /// Folder of Mustache templates, parsed once at startup.
  public var templatesDirectory = "Templates"
  /// Folder of static files served under `/static/`.
  public var publicDirectory = "Public"
  /// Cards per batch (page and fragment).
  public var batchSize = 20
  /// How many cards before the end of the list the next-page trigger sits.
  public var prefetchMargin = 5
  /// Rows past a batch that should already be cached from GitHub; the next search page is read ahead
  /// when they reach past the pages read so far (0 turns read-ahead off).
  public var readAhead = 40
  /// Star histories warmed after the cards whose history a reader asks for (0 turns it off).
  public var warmHistories = 4
  /// Whether the avatars of the cards in each batch sent are fetched into the cache at once.
  public var warmAvatars = true
  /// Byte budget of the GitHub response cache.
  public var cacheBytes = 16 * 1024 * 1024
  /// How long a search page stays fresh, in seconds.
  public var searchTTL = 60
  /// How long star histories stay fresh before ETag revalidation, in seconds.
  public var historyTTL = 600
  /// Open-connection cap of the HTTP server.
  public var maxConnections = 1024
  /// Seconds allowed to receive a request head.
  public var headerTimeout = 10
  /// Seconds an idle keep-alive connection is kept.
  public var idleTimeout = 60
  /// Seconds allowed for in-flight requests when draining on SIGINT/SIGTERM.
  public var drainTimeout = 10
  /// Serve an in-process GitHub double instead of the real GitHub.
  public var demo = false
  /// Latency the demo double adds to each upstream call, as `MIN..MAX` milliseconds.
  public var demoLatency = "80..400"
  /// Seed of the demo catalog.
  public var demoSeed: UInt64 = 1
  /// Which app readers sign in to in the demo: `github-app` (expiring tokens, refreshed) or `oauth-app`.
  public var demoApp = "github-app"
  /// Repositories in the demo catalog (its owners are a tenth as many).
  public var demoRepositories = 20_000
  /// Write one access-log line per request to standard error.
  public var accessLog = true
  /// PEM file of CA certificates trusted for upstream TLS instead of the system bundle (GitHub
  /// Enterprise Server, corporate proxies); nil uses the system bundle.
  public var caFile: String?
  /// Seconds a GitHub API call may take, connection included, before it fails as unanswered.
  public var upstreamTimeout = 15
  /// Transfers in flight at once to the API host (further calls queue).
  public var apiTransfers = 32
  /// Transfers in flight at once to the avatar host, counted apart from the API's.
  public var avatarTransfers = 16
  /// `redis://[:password@]host:port/db` of the store shared by several instances; nil runs alone.
  /// It may hold a password, so it is never printed.
  public var redisURL: String?
  /// Milliseconds a Redis command may take before the instance falls back to its local state.
  public var redisTimeoutMS = 50
  /// TLS and Sentinel for Redis, and its passwords (see `AppConfiguration+Redis.swift`).
  public var redis = RedisSettings()

  // MARK: Sign in with GitHub (see SignInSettings.swift)
  /// The OAuth app's client id; nil turns sign-in off (no button, nothing else changes).
  public var githubClientID: String?
  /// The OAuth app's client secret, from `GITHUB_CLIENT_SECRET` or `--github-client-secret-file` only.
  /// Never logged or rendered.
  public var githubClientSecret: String?
  /// The site's own URL as readers reach it (the OAuth redirect URI is this plus `/login/callback`);
  /// nil uses `http://host:port` when listening on loopback.
  public var publicURL: String?
  /// GitHub's web host, where readers authorize the app (GitHub Enterprise Server has its own).
  public var githubWebURL = "https://github.com"
  /// The 32-byte key sessions are sealed under, read from `--session-key-file`; nil makes a random
  /// one at startup (sessions then end at a restart). Never logged.
  public var sessionKey: [UInt8]?
  /// Allow a plain-http public URL that is not loopback (cookies then travel in clear).
  public var insecureCookies = false
  /// Sessions kept at most (in memory, or in Redis across instances); past it new sign-ins get a 503.
  public var maxSessions = 100_000

  // Operations: what a production host needs (see README "Deploying").
  /// `--version` was given: print `BuildInfo.versionLine` and exit.
  public var showVersion = false
  /// Proxies whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Request-Id` are believed.
  public var trustedProxies = TrustedProxies()
  /// Log lines as text or JSON lines.
  public var logFormat = LogFormat.text
  /// The `instance` field of JSON log lines; nil is `hostname-pid`.
  public var instance: String?
  /// File holding the GitHub token (read at startup, never printed).
  public var githubTokenFile: String?

  /// The defaults.
  public init() {}

  /// Every secret the configuration holds, which log lines redact.
  var secrets: [String?] { [githubToken, githubClientSecret, redis.password, redis.sentinelPassword] }

  /// What parsing the command line produced.
  public typealias ParseResult = CommandLineOptions.ParseResult
  /// A flag or variable that could not be used; the message names it.
  public typealias ConfigurationError = OptionError

  /// Reads the environment's variables, then `arguments` (without the program name), into `self`.
  public mutating func parse(arguments: [String], environment: [String: String]) throws(OptionError)
    -> ParseResult
  {
    let result = try Self.table.parse(arguments, environment: environment, into: &self)
    // The token never comes from a flag value (it would show in `ps`): a file named by a flag, the
    // environment, or the systemd credential `github-token`, in that order.
    if let file = githubTokenFile {
      do {
        githubToken = try SecretSource.read(file: file)
      } catch {
        throw OptionError("--github-token-file: \(error.description)")
      }
    } else if let token = environment["GITHUB_TOKEN"], !token.isEmpty {
      githubToken = token
    } else if let token = try SecretSource.credential("github-token", environment: environment) {
      githubToken = token
    }
    // So does the OAuth client secret: its file flag (read by the option), the environment, or the
    // credential `github-client-secret`.
    if githubClientSecret == nil {
      if let secret = environment["GITHUB_CLIENT_SECRET"], !secret.isEmpty {
        githubClientSecret = secret
      } else if let secret = try SecretSource.credential("github-client-secret", environment: environment) {
        githubClientSecret = secret
      }
    }
    // The session key: its file flag, or the credential `session-key` (raw 32 bytes or 64 hex digits).
    if sessionKey == nil, let path = SecretSource.credentialPath("session-key", environment: environment) {
      sessionKey = try SignInSettings.sessionKey(fromFile: path)
    }
    try settleRedis(arguments: arguments, environment: environment)
    try refuseDemoOffLoopback()
    return result
  }

  /// The `--help` text: every flag with its variable and default.
  public static var helpText: String { table.helpText }

  static let table = OptionTable(
    program: "repo-scroll", summary: "infinite-scroll GitHub repository search, rendered on the server.",
    options: options,
    epilogue: [
      "environment only:",
      "  GITHUB_TOKEN                raises GitHub's rate limits; sent only to the API host, never logged",
      "  GITHUB_CLIENT_SECRET        the OAuth app's secret for sign-in (or --github-client-secret-file)",
      "  REDIS_PASSWORD              the Redis password (or --redis-password-file, or in REDIS_URL)",
      "  REDIS_SENTINEL_PASSWORD     the sentinels' password (or --redis-sentinel-password-file)",
      "  CREDENTIALS_DIRECTORY       systemd credentials (LoadCredential=): github-token, github-client-secret,",
      "                              session-key, redis-password and redis-sentinel-password are read from it",
      "                              when not given otherwise",
      "one binary: --demo ships inside the release binary (one artefact to build and deploy); it is an",
      "offline demo whose double has a published client secret, so it refuses a --host that is not loopback",
    ])

  static let options: [Option<AppConfiguration>] =
    [
      .text("--host", env: "REPOSCROLL_HOST", value: "ADDR", help: "listen address (127.0.0.1)", \.host),
      .int("--port", env: "PORT", help: "listen port, 0 for any (8080)", in: 0...65535, \.port),
      .url(
        "--github-api", env: "GITHUB_API_URL", help: "GitHub REST base URL (https://api.github.com)",
        \.githubAPI),
      .url(
        "--avatar-base", env: "AVATAR_BASE_URL",
        help: "the only avatar host (https://avatars.githubusercontent.com)", \.avatarBase),
      .text(
        "--templates", env: "TEMPLATES_DIR", value: "DIR", help: "template folder (Templates)",
        \.templatesDirectory),
      .text(
        "--public", env: "PUBLIC_DIR", value: "DIR", help: "static file folder (Public)", \.publicDirectory),
      .int("--batch-size", env: "BATCH_SIZE", help: "cards per batch (20)", in: 1...100, \.batchSize),
      .int(
        "--prefetch-margin", env: "PREFETCH_MARGIN",
        help: "cards before the end that trigger the next batch (5)",
        in: 0...100, \.prefetchMargin),
      .int(
        "--read-ahead", env: "READ_AHEAD",
        help: "rows ahead of a batch to have from GitHub already; 0 is off (40)",
        in: 0...1000, \.readAhead),
      .int(
        "--warm-histories", env: "WARM_HISTORIES",
        help:
          "star histories warmed after each one asked for, while the core budget is over half; 0 is off (4)",
        in: 0...20, \.warmHistories),
      .bool(
        "--warm-avatars", env: "WARM_AVATARS",
        help: "fetch the avatars of each batch sent into the cache (true)",
        \.warmAvatars),
      Option("--cache-mb", env: "CACHE_MB", value: "N", help: "GitHub response cache size in MiB (16)") {
        $0.cacheBytes = try OptionValue.int($1, in: 1...4096) * 1024 * 1024
      },
      .int(
        "--search-ttl", env: "SEARCH_TTL", value: "S", help: "seconds a search page stays fresh (60)",
        in: 0...86400, \.searchTTL),
      .int(
        "--history-ttl", env: "HISTORY_TTL", value: "S",
        help: "seconds before star histories are revalidated (600)",
        in: 0...86400, \.historyTTL),
      .int(
        "--max-connections", env: "MAX_CONNECTIONS", help: "open connection cap (1024)", in: 1...100_000,
        \.maxConnections),
      .int(
        "--header-timeout", env: "HEADER_TIMEOUT", value: "S", help: "seconds to receive a request head (10)",
        in: 1...3600, \.headerTimeout),
      .int(
        "--idle-timeout", env: "IDLE_TIMEOUT", value: "S", help: "keep-alive idle seconds (60)", in: 1...3600,
        \.idleTimeout),
      .int(
        "--drain-timeout", env: "DRAIN_TIMEOUT", value: "S",
        help: "seconds to finish requests on shutdown (10)",
        in: 0...3600, \.drainTimeout),
      .bool(
        "--demo", env: "REPOSCROLL_DEMO", value: nil,
        help: "serve an offline GitHub double in-process; loopback --host only (off)",
        \.demo),
      .text(
        "--demo-latency", env: "DEMO_LATENCY", value: "MS..MS",
        help: "upstream latency the demo adds (80..400)",
        \.demoLatency),
      Option("--demo-seed", env: "DEMO_SEED", value: "N", help: "seed of the demo catalog (1)") {
        guard let seed = UInt64($1) else { throw OptionError("not a number: \($1)") }
        $0.demoSeed = seed
      },
      Option(
        "--demo-app", env: "DEMO_APP", value: "github-app|oauth-app",
        help: "the demo's sign-in: a GitHub App (8-hour tokens, refreshed) or an OAuth app (github-app)"
      ) {
        guard ["github-app", "oauth-app"].contains($1) else {
          throw OptionError("expected github-app or oauth-app")
        }
        $0.demoApp = $1
      },
      .int(
        "--demo-repos", env: "DEMO_REPOS", help: "repositories in the demo catalog (20000)",
        in: 1...2_000_000,
        \.demoRepositories),
      .text(
        "--ca-file", env: "CA_FILE", value: "PATH",
        help: "PEM CA bundle trusted for upstream TLS (system bundle)",
        \.caFile),
      .int(
        "--upstream-timeout", env: "UPSTREAM_TIMEOUT", value: "S",
        help: "seconds a GitHub API call may take before it fails (15)", in: 1...3600, \.upstreamTimeout),
      .int(
        "--api-transfers", env: "API_TRANSFERS", help: "upstream API transfers in flight (32)", in: 1...1024,
        \.apiTransfers),
      .int(
        "--avatar-transfers", env: "AVATAR_TRANSFERS",
        help: "avatar transfers in flight, apart from the API's (16)",
        in: 1...1024, \.avatarTransfers),
      .bool("--access-log", env: "ACCESS_LOG", help: "one log line per request (true)", \.accessLog),
      .text(
        "--redis", env: "REDIS_URL", value: "URL",
        help: "share cache, rate limits and coalescing via redis[s]://[user@]host:port/db (off)", \.redisURL),
      .int(
        "--redis-timeout", env: "REDIS_TIMEOUT_MS", value: "MS",
        help: "Redis command timeout before falling back to local state (50)", in: 1...10_000,
        \.redisTimeoutMS),
    ] + redisOptions + [
      // MARK: Sign in with GitHub
      Option(
        "--github-client-id", env: "GITHUB_CLIENT_ID", value: "ID",
        help: "OAuth app client id; turns on Sign in with GitHub (off)"
      ) { $0.githubClientID = try SignInSettings.clientID($1) },
      Option(
        "--github-client-secret-file", env: "GITHUB_CLIENT_SECRET_FILE", value: "PATH",
        help: "file holding the OAuth client secret (or GITHUB_CLIENT_SECRET)"
      ) { $0.githubClientSecret = try SignInSettings.secret(fromFile: $1) },
      Option(
        "--public-url", env: "PUBLIC_URL", value: "URL",
        help: "the site's URL as readers reach it; OAuth returns to URL/login/callback (http://host:port)"
      ) { $0.publicURL = try SignInSettings.publicURL($1) },
      .url(
        "--github-web-url", env: "GITHUB_WEB_URL",
        help: "GitHub web host readers authorize on (https://github.com)",
        \.githubWebURL),
      Option(
        "--session-key-file", env: "SESSION_KEY_FILE", value: "PATH",
        help: "32-byte key (raw or 64 hex digits) sealing sessions; random per start if absent"
      ) { $0.sessionKey = try SignInSettings.sessionKey(fromFile: $1) },
      .bool(
        "--insecure-cookies", env: "INSECURE_COOKIES", value: nil,
        help: "allow a plain-http public URL that is not loopback (off)", \.insecureCookies),
      .int(
        "--max-sessions", env: "MAX_SESSIONS",
        help: "signed-in sessions kept at most, 10 per account; past it sign-ins get a 503 (100000)",
        in: 1...100_000_000, \.maxSessions),
      // Operations: version, proxies, log format, secrets from files.
      .bool("--version", value: nil, help: "print the version and commit, then exit", \.showVersion),
      Option(
        "--trusted-proxies", env: "TRUSTED_PROXIES", value: "CIDR,...",
        help: "believe X-Forwarded-For/-Proto and X-Request-Id only from these (none)"
      ) { $0.trustedProxies = try TrustedProxies(parsing: $1) },
      Option(
        "--log-format", env: "LOG_FORMAT", value: "text|json", help: "log lines as text or JSON lines (text)"
      ) {
        guard let format = LogFormat(rawValue: $1) else {
          throw OptionError("expected text or json, got \($1)")
        }
        $0.logFormat = format
      },
      .text(
        "--instance", env: "INSTANCE_NAME", value: "NAME", help: "instance name in JSON logs (host-pid)",
        \.instance),
      .text(
        "--github-token-file", env: "GITHUB_TOKEN_FILE", value: "PATH",
        help: "read the GitHub token from this file (else $GITHUB_TOKEN, else credential github-token)",
        \.githubTokenFile),
    ]
}

extension AppConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// A summary with the token redacted, so printing the configuration cannot leak it.
  public var description: String {
    "AppConfiguration(host: \(host), port: \(port), githubAPI: \(githubAPI), avatarBase: \(avatarBase), "
      + "token: \(githubToken == nil ? "none" : "[redacted]"), batchSize: \(batchSize), "
      + "prefetchMargin: \(prefetchMargin), demo: \(demo), redis: \(redisURL == nil ? "off" : "on"), "
      + "redisPassword: \(redis.password == nil ? "none" : "[redacted]"), "
      + "signIn: \(githubClientID == nil ? "off" : "on"), "
      + "clientSecret: \(githubClientSecret == nil ? "none" : "[redacted]"), "
      + "sessionKey: \(sessionKey == nil ? "random" : "[redacted]"))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }

  /// A mirror without the token, so `dump` cannot leak it either.
  public var customMirror: Mirror {
    Mirror(self, children: ["summary": description])
  }
}
