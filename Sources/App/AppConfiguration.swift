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
  /// Write one access-log line per request to standard error.
  public var accessLog = true
  /// PEM file of CA certificates trusted for upstream TLS instead of the system bundle (GitHub
  /// Enterprise Server, corporate proxies); nil uses the system bundle.
  public var caFile: String?
  /// Transfers in flight at once to the API host (further calls queue).
  public var apiTransfers = 32
  /// Transfers in flight at once to the avatar host, counted apart from the API's.
  public var avatarTransfers = 16
  /// `redis://[:password@]host:port/db` of the store shared by several instances; nil runs alone.
  /// It may hold a password, so it is never printed.
  public var redisURL: String?
  /// Milliseconds a Redis command may take before the instance falls back to its local state.
  public var redisTimeoutMS = 50

  /// The defaults.
  public init() {}

  /// What parsing the command line produced.
  public enum ParseResult: Sendable, Equatable {
    /// Run with this configuration.
    case run
    /// Print this help text and exit 0.
    case help(String)
  }

  /// A flag or variable that could not be used; the message names it.
  public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// What was wrong, naming the flag or variable.
    public let description: String
  }

  struct Option: Sendable {
    let flag: String
    let env: String?
    let valueName: String?
    let help: String
    let apply: @Sendable (inout AppConfiguration, String) throws -> Void
  }

  /// Reads `arguments` (without the program name) and `environment` into `self`.
  public mutating func parse(arguments: [String], environment: [String: String]) throws -> ParseResult {
    for option in Self.options {
      if let env = option.env, let value = environment[env], !value.isEmpty {
        do { try option.apply(&self, value) } catch let error as ConfigurationError {
          throw ConfigurationError(description: "\(env): \(error.description)")
        }
      }
    }
    if let token = environment["GITHUB_TOKEN"], !token.isEmpty { githubToken = token }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--help" || argument == "-h" { return .help(Self.helpText) }
      let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
      guard let name = parts.first, let option = Self.options.first(where: { $0.flag == name }) else {
        throw ConfigurationError(description: "unknown option \(argument) (see --help)")
      }
      let value: String
      if option.valueName == nil {
        value = parts.count > 1 ? parts[1] : "true"
      } else if parts.count > 1 {
        value = parts[1]
      } else if index < arguments.count {
        value = arguments[index]
        index += 1
      } else {
        throw ConfigurationError(description: "\(name) needs a value")
      }
      do { try option.apply(&self, value) } catch let error as ConfigurationError {
        throw ConfigurationError(description: "\(name): \(error.description)")
      }
    }
    return .run
  }

  /// The `--help` text: every flag with its variable and default.
  public static var helpText: String {
    var lines = [
      "repo-scroll: infinite-scroll GitHub repository search, rendered on the server.", "",
      "usage: repo-scroll [options]", "", "options (flag, environment variable, default):",
    ]
    for option in options {
      let flag = option.valueName.map { "\(option.flag) \($0)" } ?? option.flag
      let env = option.env.map { "  [$\($0)]" } ?? ""
      lines.append("  \(padded(flag))\(option.help)\(env)")
    }
    lines.append("  \(padded("--help"))print this help and exit")
    lines.append("")
    lines.append("environment only:")
    lines.append(
      "  GITHUB_TOKEN                raises GitHub's rate limits; sent only to the API host, never logged")
    return lines.joined(separator: "\n")
  }

  static let options: [Option] = [
    Option(flag: "--host", env: "REPOSCROLL_HOST", valueName: "ADDR", help: "listen address (127.0.0.1)") {
      $0.host = $1
    },
    Option(flag: "--port", env: "PORT", valueName: "N", help: "listen port, 0 for any (8080)") {
      $0.port = try int($1, in: 0...65535)
    },
    Option(
      flag: "--github-api", env: "GITHUB_API_URL", valueName: "URL",
      help: "GitHub REST base URL (https://api.github.com)"
    ) { $0.githubAPI = try url($1) },
    Option(
      flag: "--avatar-base", env: "AVATAR_BASE_URL", valueName: "URL",
      help: "the only avatar host (https://avatars.githubusercontent.com)"
    ) { $0.avatarBase = try url($1) },
    Option(flag: "--templates", env: "TEMPLATES_DIR", valueName: "DIR", help: "template folder (Templates)") {
      $0.templatesDirectory = $1
    },
    Option(flag: "--public", env: "PUBLIC_DIR", valueName: "DIR", help: "static file folder (Public)") {
      $0.publicDirectory = $1
    },
    Option(flag: "--batch-size", env: "BATCH_SIZE", valueName: "N", help: "cards per batch (20)") {
      $0.batchSize = try int($1, in: 1...100)
    },
    Option(
      flag: "--prefetch-margin", env: "PREFETCH_MARGIN", valueName: "N",
      help: "cards before the end that trigger the next batch (5)"
    ) { $0.prefetchMargin = try int($1, in: 0...100) },
    Option(
      flag: "--read-ahead", env: "READ_AHEAD", valueName: "N",
      help: "rows ahead of a batch to have from GitHub already; 0 is off (40)"
    ) { $0.readAhead = try int($1, in: 0...1000) },
    Option(
      flag: "--warm-histories", env: "WARM_HISTORIES", valueName: "N",
      help: "star histories warmed after each one asked for, while the core budget is over half; 0 is off (4)"
    ) { $0.warmHistories = try int($1, in: 0...20) },
    Option(
      flag: "--warm-avatars", env: "WARM_AVATARS", valueName: "BOOL",
      help: "fetch the avatars of each batch sent into the cache (true)"
    ) { $0.warmAvatars = try bool($1) },
    Option(
      flag: "--cache-mb", env: "CACHE_MB", valueName: "N", help: "GitHub response cache size in MiB (16)"
    ) {
      $0.cacheBytes = try int($1, in: 1...4096) * 1024 * 1024
    },
    Option(
      flag: "--search-ttl", env: "SEARCH_TTL", valueName: "S", help: "seconds a search page stays fresh (60)"
    ) {
      $0.searchTTL = try int($1, in: 0...86400)
    },
    Option(
      flag: "--history-ttl", env: "HISTORY_TTL", valueName: "S",
      help: "seconds before star histories are revalidated (600)"
    ) { $0.historyTTL = try int($1, in: 0...86400) },
    Option(
      flag: "--max-connections", env: "MAX_CONNECTIONS", valueName: "N", help: "open connection cap (1024)"
    ) { $0.maxConnections = try int($1, in: 1...100_000) },
    Option(
      flag: "--header-timeout", env: "HEADER_TIMEOUT", valueName: "S",
      help: "seconds to receive a request head (10)"
    ) { $0.headerTimeout = try int($1, in: 1...3600) },
    Option(flag: "--idle-timeout", env: "IDLE_TIMEOUT", valueName: "S", help: "keep-alive idle seconds (60)")
    {
      $0.idleTimeout = try int($1, in: 1...3600)
    },
    Option(
      flag: "--drain-timeout", env: "DRAIN_TIMEOUT", valueName: "S",
      help: "seconds to finish requests on shutdown (10)"
    ) { $0.drainTimeout = try int($1, in: 0...3600) },
    Option(
      flag: "--demo", env: "REPOSCROLL_DEMO", valueName: nil,
      help: "serve an offline GitHub double in-process (off)"
    ) { $0.demo = try bool($1) },
    Option(
      flag: "--demo-latency", env: "DEMO_LATENCY", valueName: "MS..MS",
      help: "upstream latency the demo adds (80..400)"
    ) { $0.demoLatency = $1 },
    Option(flag: "--demo-seed", env: "DEMO_SEED", valueName: "N", help: "seed of the demo catalog (1)") {
      guard let seed = UInt64($1) else { throw ConfigurationError(description: "not a number: \($1)") }
      $0.demoSeed = seed
    },
    Option(
      flag: "--ca-file", env: "CA_FILE", valueName: "PATH",
      help: "PEM CA bundle trusted for upstream TLS (system bundle)"
    ) { $0.caFile = $1 },
    Option(
      flag: "--api-transfers", env: "API_TRANSFERS", valueName: "N",
      help: "upstream API transfers in flight (32)"
    ) { $0.apiTransfers = try int($1, in: 1...1024) },
    Option(
      flag: "--avatar-transfers", env: "AVATAR_TRANSFERS", valueName: "N",
      help: "avatar transfers in flight, apart from the API's (16)"
    ) { $0.avatarTransfers = try int($1, in: 1...1024) },
    Option(
      flag: "--access-log", env: "ACCESS_LOG", valueName: "BOOL", help: "one log line per request (true)"
    ) { $0.accessLog = try bool($1) },
    Option(
      flag: "--redis", env: "REDIS_URL", valueName: "URL",
      help: "share cache, rate limits and coalescing via redis://[:pw@]host:port/db (off)"
    ) { $0.redisURL = $1 },
    Option(
      flag: "--redis-timeout", env: "REDIS_TIMEOUT_MS", valueName: "MS",
      help: "Redis command timeout before falling back to local state (50)"
    ) { $0.redisTimeoutMS = try int($1, in: 1...10_000) },
  ]

  /// The text padded with spaces to the help column.
  static func padded(_ text: String) -> String {
    text.count >= 28 ? text + " " : text + String(repeating: " ", count: 28 - text.count)
  }

  static func int(_ value: String, in range: ClosedRange<Int>) throws -> Int {
    guard let n = Int(value), range.contains(n) else {
      throw ConfigurationError(
        description: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(value)")
    }
    return n
  }

  static func bool(_ value: String) throws -> Bool {
    switch value.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: throw ConfigurationError(description: "expected true or false, got \(value)")
    }
  }

  static func url(_ value: String) throws -> String {
    guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
      throw ConfigurationError(description: "expected an http or https URL, got \(value)")
    }
    return value.hasSuffix("/") ? String(value.dropLast()) : value
  }
}

extension AppConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// A summary with the token redacted, so printing the configuration cannot leak it.
  public var description: String {
    "AppConfiguration(host: \(host), port: \(port), githubAPI: \(githubAPI), avatarBase: \(avatarBase), "
      + "token: \(githubToken == nil ? "none" : "[redacted]"), batchSize: \(batchSize), "
      + "prefetchMargin: \(prefetchMargin), demo: \(demo), redis: \(redisURL == nil ? "off" : "on"))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }

  /// A mirror without the token, so `dump` cannot leak it either.
  public var customMirror: Mirror {
    Mirror(self, children: ["summary": description])
  }
}
