/// A kind of project the catalog is full of: what its names, descriptions and topics say, which
/// languages it is usually written in, and how many more stars it gathers than a random repository.
/// Themes give common developer words (http, server, mustache, infinite scroll) GitHub-like frequency.
struct CatalogTheme {
  /// Relative weight, per mille of all repositories.
  let weight: Int
  /// Name stems, already valid in repository names.
  let stems: [String]
  /// Description heads, without article or adjective: "HTTP server", "Mustache template engine".
  let phrases: [String]
  /// Topics drawn from first.
  let topics: [String]
  /// Favoured languages, weighted by repetition; empty means any.
  let languages: [String]
  /// Share of repositories written in a favoured language (the rest draw from all languages).
  let languageBias: Double
  /// Star multiplier for the maintained half: infrastructure such as HTTP servers collects far more stars.
  let starBoost: Double
  /// Whether Swift repositories of this theme are tagged `server-side-swift`.
  let serverSide: Bool

  /// Every theme; the remaining share of repositories uses the generic noun-and-adjective names.
  static let all: [CatalogTheme] = [
    CatalogTheme(
      weight: 70, stems: ["http-server", "httpd", "web-server", "server", "http", "serve", "static-server"],
      phrases: [
        "HTTP server", "HTTP/1.1 and HTTP/2 web server", "embeddable HTTP server",
        "HTTP server and reverse proxy",
        "static file HTTP server", "event-driven HTTP server",
      ],
      topics: ["http", "http-server", "server", "web", "networking", "web-server", "backend"],
      languages: ["Go", "Rust", "C", "C++", "JavaScript", "Swift", "Java"], languageBias: 0.5, starBoost: 100,
      serverSide: true),
    CatalogTheme(
      weight: 50, stems: ["web", "framework", "web-framework", "webkit", "api-server", "router"],
      phrases: [
        "web framework with a built-in HTTP server", "HTTP web framework and server toolkit", "web framework",
        "server-side web framework for HTTP APIs", "REST API framework",
      ],
      topics: ["web", "framework", "http", "server", "backend", "rest", "web-framework", "api"],
      languages: ["JavaScript", "TypeScript", "Python", "Go", "Ruby", "PHP", "Swift", "Java", "Kotlin"],
      languageBias: 0.6, starBoost: 40, serverSide: true),
    CatalogTheme(
      weight: 30, stems: ["http-client", "client", "fetch", "request", "rest-client", "http"],
      phrases: ["HTTP client", "HTTP client and server library", "REST and HTTP client", "web client"],
      topics: ["http", "http-client", "client", "rest", "api", "networking"],
      languages: [], languageBias: 0, starBoost: 20, serverSide: true),
    CatalogTheme(
      weight: 25,
      stems: [
        "mustache", "templates", "handlebars", "template-engine", "mustache-templates", "stache", "template",
      ],
      phrases: [
        "Mustache template engine", "logic-less Mustache templates", "template engine with Mustache syntax",
        "HTML template engine", "templates for server-rendered pages",
      ],
      topics: ["mustache", "templates", "template-engine", "html", "web"],
      languages: [], languageBias: 0, starBoost: 10, serverSide: true),
    CatalogTheme(
      weight: 25,
      stems: [
        "infinite-scroll", "virtual-list", "infinite-list", "scroll-loader", "react-infinite-scroll",
        "vue-infinite-scroll", "infinite-scroller", "scroll",
      ],
      phrases: [
        "infinite scroll component", "infinite scroll and virtual list", "virtual list with infinite scroll",
        "infinite scrolling for long lists", "lazy-loading infinite scroll",
      ],
      topics: ["infinite-scroll", "scroll", "virtual-list", "infinite", "pagination", "ui", "frontend"],
      languages: [
        "JavaScript", "JavaScript", "JavaScript", "JavaScript", "JavaScript", "TypeScript", "TypeScript",
        "TypeScript", "Vue", "Swift", "Kotlin", "Dart",
      ],
      languageBias: 0.5, starBoost: 10, serverSide: false),
    CatalogTheme(
      weight: 40, stems: ["cli", "cmd", "term", "command", "args", "console"],
      phrases: ["command-line tool", "CLI framework and argument parser", "terminal CLI", "CLI toolkit"],
      topics: ["cli", "command-line", "terminal", "tool"],
      languages: ["Go", "Rust", "Python", "Shell", "Swift"], languageBias: 0.4, starBoost: 5,
      serverSide: false),
    CatalogTheme(
      weight: 30, stems: ["json", "parser", "json-parser", "yaml", "toml", "serde"],
      phrases: [
        "JSON parser", "fast JSON parser and serializer", "parser combinator library", "YAML and JSON parser",
      ],
      topics: ["parser", "json", "serialization", "yaml"],
      languages: [], languageBias: 0, starBoost: 5, serverSide: false),
    CatalogTheme(
      weight: 35, stems: ["db", "database", "orm", "sql", "kv", "store", "migrate"],
      phrases: [
        "database driver", "async database client", "embedded key-value database", "SQL database toolkit",
        "ORM and database migrations",
      ],
      topics: ["database", "sql", "orm", "postgresql", "sqlite", "async"],
      languages: [], languageBias: 0, starBoost: 8, serverSide: true),
    CatalogTheme(
      weight: 25, stems: ["async", "runtime", "reactor", "tasks", "promise", "channels"],
      phrases: ["async runtime", "async I/O library", "async task scheduler", "async networking toolkit"],
      topics: ["async", "concurrency", "async-await", "networking"],
      languages: ["Rust", "Swift", "Python", "JavaScript", "Kotlin", "C#"], languageBias: 0.5, starBoost: 8,
      serverSide: true),
    CatalogTheme(
      weight: 8, stems: ["swift-server", "vapor-kit", "swift-http", "swift-web", "hummingbird-kit"],
      phrases: [
        "server-side Swift web framework", "HTTP server for server-side Swift", "server-side Swift toolkit",
      ],
      topics: ["server-side-swift", "swift", "http", "server", "web", "swift-nio"],
      languages: ["Swift"], languageBias: 1, starBoost: 30, serverSide: true),
  ]
}
