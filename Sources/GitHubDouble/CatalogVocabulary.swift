/// Word lists the catalog generator draws from.
enum CatalogVocabulary {
  static let syllables = [
    "ka", "ro", "mi", "tan", "zel", "vor", "lin", "qua", "dex", "bo", "sha", "nim", "tor", "ax", "el",
    "ri", "pol", "jun", "fae", "gor", "ly", "mon", "sk", "ur", "vek", "wen", "yo", "zi", "hal", "ost",
  ]
  static let orgSuffixes = ["labs", "io", "hq", "dev", "org", "team", "works", "systems", "foundation"]
  static let nouns = [
    "json", "http", "parser", "server", "router", "cache", "queue", "scheduler", "compiler", "editor",
    "shell", "terminal", "graph", "vector", "matrix", "tensor", "canvas", "widget", "bot", "crawler",
    "proxy", "gateway", "logger", "tracer", "metrics", "dashboard", "engine", "kernel", "driver", "emulator",
    "game", "chess", "tetris", "wiki", "blog", "notes", "calendar", "mail", "chat", "stream", "codec",
    "image", "audio", "video", "font", "icons", "theme", "config", "template", "orm", "database", "kv",
    "search", "index", "crypto", "wallet", "auth", "oauth", "sdk", "cli", "api", "framework", "toolkit",
    "client", "web", "mustache", "templates", "scroll", "async", "server", "http", "json", "parser",
  ]
  static let adjectives = [
    "fast", "tiny", "simple", "modern", "lazy", "async", "safe", "minimal", "awesome", "smart", "open",
    "reactive", "portable", "robust", "blazing", "elegant", "friendly", "headless", "distributed", "micro",
  ]
  static let domains = [
    "web apps", "embedded devices", "data science", "machine learning", "game development", "the terminal",
    "mobile apps", "cloud services", "static sites", "microservices", "home automation", "robotics",
    "scientific computing", "DevOps", "teaching", "security research",
  ]
  static let topics = [
    "javascript", "python", "rust", "go", "swift", "web", "cli", "api", "database", "machine-learning",
    "deep-learning", "react", "vue", "docker", "kubernetes", "linux", "game", "emulator", "compiler",
    "parser", "http", "json", "security", "crypto", "blockchain", "iot", "robotics", "data-science",
    "visualization", "terminal", "editor", "testing", "devops", "android", "ios", "macos", "windows",
    "graphql", "rest", "websocket", "async", "performance", "hacktoberfest", "awesome", "tutorial",
    "server", "client", "framework", "web-framework", "templates", "nodejs", "typescript", "frontend",
  ]
  /// Languages with relative weights; nil language gets the rest.
  static let languages: [(String, Int)] = [
    ("JavaScript", 16), ("Python", 16), ("TypeScript", 11), ("Java", 8), ("Go", 7), ("Rust", 5),
    ("C++", 6), ("C", 5), ("C#", 4), ("Ruby", 3), ("PHP", 3), ("Swift", 3), ("Kotlin", 2), ("Shell", 3),
    ("HTML", 3), ("CSS", 2), ("Jupyter Notebook", 2), ("Dart", 1), ("Scala", 1), ("Haskell", 1),
    ("Elixir", 1), ("Lua", 1), ("Zig", 1), ("Objective-C", 1), ("Vue", 1), ("Assembly", 1),
  ]
  /// (key, name, spdx_id, node_id)
  static let licenses: [(String, String, String, String)] = [
    ("mit", "MIT License", "MIT", "MDc6TGljZW5zZTEz"),
    ("apache-2.0", "Apache License 2.0", "Apache-2.0", "MDc6TGljZW5zZTI="),
    ("gpl-3.0", "GNU General Public License v3.0", "GPL-3.0", "MDc6TGljZW5zZTk="),
    ("bsd-3-clause", "BSD 3-Clause \"New\" or \"Revised\" License", "BSD-3-Clause", "MDc6TGljZW5zZTU="),
    ("mpl-2.0", "Mozilla Public License 2.0", "MPL-2.0", "MDc6TGljZW5zZTE0"),
    ("other", "Other", "NOASSERTION", "MDc6TGljZW5zZTA="),
  ]
  static let emoji = ["🚀", "✨", "🦀", "🐍", "⚡️", "🔥", "📦", "🧪", "🇺🇦", "👩🏽‍💻"]
  /// Payloads for hostile fixtures: each must stay inert when rendered with escaping.
  static let xssPayloads = [
    "<img src=x onerror=window.__xss=1>",
    "\"><script>window.__xss=1</script>",
    "'><svg onload=window.__xss=1>",
    "</textarea><script>window.__xss=1</script>",
    "{{#x}}{{{html}}}{{/x}}<img src=x onerror=window.__xss=1> javascript:window.__xss=1",
    "<a href=\"javascript:window.__xss=1\">click</a>",
  ]
  /// Repository names for `hostileNames` (each would set the flag if it reached the page as markup).
  static let xssNamePayloads = [
    "\"><script>window.__xss=1</script>", "<img src=x onerror=window.__xss=1>",
  ]
  /// The owner login for `hostileNames`.
  static let xssLoginPayload = "'><svg onload=window.__xss=1>"
}
