// Runs the GitHub double standalone: flags first, then DOUBLE_* environment variables, then defaults.
import Dispatch
import GitHubDouble

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let usage = """
  usage: github-double [options]
    --host H              bind address (DOUBLE_HOST, default 127.0.0.1)
    --port N              port, 0 = any free one (DOUBLE_PORT, default 8081)
    --seed S              catalog seed (DOUBLE_SEED, default 1)
    --repos N             repositories in the catalog (DOUBLE_REPOS, default 20000)
    --owners N            owners in the catalog (DOUBLE_OWNERS, default 2000)
    --latency MS|A..B     latency for every endpoint, ms (DOUBLE_LATENCY)
    --latency-ENDPOINT V  latency for one endpoint: search, history, count, avatar, rate_limit, repository
    --fault-rate R        share of 5xx answers, 0...1 (DOUBLE_FAULT_RATE)
    --hang-rate R         share of requests that hang until the client leaves (DOUBLE_HANG_RATE)
    --truncated-rate R    share of JSON bodies cut in half (DOUBLE_TRUNCATED_RATE)
    --secondary-rate R    share of secondary-limit 403s with Retry-After (DOUBLE_SECONDARY_RATE)
    --search-limit N      search requests per minute (DOUBLE_SEARCH_LIMIT, default 30)
    --core-limit N        core requests per hour (DOUBLE_CORE_LIMIT, default 5000)
    --limit-status 403|429  status of an exhausted limit (DOUBLE_LIMIT_STATUS, default 403)
    --mode NAME           misbehave on purpose (DOUBLE_MODE); NAME is one of the modes listed below
    --tidy                plain answers: no gzip, chunking or request ids, no legacy items or short pages
                          (DOUBLE_TIDY=1; by default the double answers the way api.github.com does)
    --legacy-rate R       share of items without topics, license and archived (DOUBLE_LEGACY_RATE, 0.1)
    --short-page-rate R   share of short search pages with incomplete_results (DOUBLE_SHORT_PAGE_RATE, 0.03)
    --public-url URL      base for absolute URLs in bodies and Link (DOUBLE_PUBLIC_URL; default from Host)
    --no-hostile          leave out the XSS fixtures (DOUBLE_HOSTILE=0)
    --hostile-names       also give a few repositories and one owner XSS payload names (DOUBLE_HOSTILE_NAMES=1)
    --help                this text
  Control API on the same port: GET /_double/counters, POST /_double/reset,
  POST /_double/faults?rate5xx=0.1&latency=500..2000, POST /_double/ratelimit?resource=search&remaining=0&reset=T,
  GET /_double/requests[?endpoint=search] (arrival and finish times, ms, and status of recent requests),
  POST /_double/faults?mode=NAME (mode=none clears it). Modes, seeded by --seed and the request target:
  """ + "\n" + modeList()

/// The hostile modes by class, wrapped for the help text.
func modeList() -> String {
  var lines: [String] = []
  var seen: [String] = []
  for mode in HostileMode.allCases where !seen.contains(mode.category) { seen.append(mode.category) }
  for category in seen {
    let names = HostileMode.allCases.filter { $0.category == category }.map(\.rawValue)
    lines.append("    \(category): " + names.joined(separator: ", "))
  }
  return lines.joined(separator: "\n")
}

/// Writes to standard error through the file descriptor (the C `stderr` global is not concurrency-safe).
func printError(_ text: String) {
  var bytes = Array(text.utf8)
  bytes.append(10)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // reads only the array's own bytes
}

func fail(_ message: String) -> Never {
  printError("github-double: \(message)\n\(usage)")
  exit(2)
}

func environment(_ name: String) -> String? {
  guard let raw = getenv(name) else { return nil }
  return String(cString: raw)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let arg = arguments.popFirst() {
  if arg == "--help" || arg == "-h" {
    print(usage)
    exit(0)
  }
  if arg == "--no-hostile" {
    options["hostile"] = "0"
    continue
  }
  if arg == "--tidy" {
    options["tidy"] = "1"
    continue
  }
  if arg == "--hostile-names" {
    options["hostile-names"] = "1"
    continue
  }
  guard arg.hasPrefix("--") else { fail("unexpected argument \(arg)") }
  var name = String(arg.dropFirst(2))
  var value: String
  if let eq = name.firstIndex(of: "=") {
    value = String(name[name.index(after: eq)...])
    name = String(name[..<eq])
  } else {
    guard let next = arguments.popFirst() else { fail("--\(name) needs a value") }
    value = next
  }
  options[name] = value
}

@MainActor func option(_ name: String, _ env: String) -> String? { options[name] ?? environment(env) }

@MainActor func int(_ name: String, _ env: String) -> Int? {
  guard let raw = option(name, env) else { return nil }
  guard let v = Int(raw) else { fail("--\(name) must be an integer, got \(raw)") }
  return v
}

@MainActor func rate(_ name: String, _ env: String) -> Double? {
  guard let raw = option(name, env) else { return nil }
  guard let v = Double(raw), v >= 0, v <= 1 else { fail("--\(name) must be in 0...1, got \(raw)") }
  return v
}

var config = DoubleConfiguration()
let host = option("host", "DOUBLE_HOST") ?? "127.0.0.1"
let port = int("port", "DOUBLE_PORT") ?? 8081
guard (0...65535).contains(port) else { fail("--port out of range") }
if let seed = option("seed", "DOUBLE_SEED") {
  guard let s = UInt64(seed) else { fail("--seed must be a non-negative integer") }
  config.seed = s
}
if let v = int("repos", "DOUBLE_REPOS") { config.repositoryCount = max(0, v) }
if let v = int("owners", "DOUBLE_OWNERS") { config.ownerCount = max(1, v) }
if let raw = option("latency", "DOUBLE_LATENCY") {
  guard let r = LatencyRange(parsing: raw) else { fail("--latency must be MS or A..B") }
  config.latency.all = r
}
for endpoint in DoubleEndpoint.allCases {
  let envName = "DOUBLE_LATENCY_" + endpoint.rawValue.uppercased()
  if let raw = option("latency-" + endpoint.rawValue, envName) {
    guard let r = LatencyRange(parsing: raw) else {
      fail("--latency-\(endpoint.rawValue) must be MS or A..B")
    }
    config.latency.perEndpoint[endpoint] = r
  }
}
if let v = rate("fault-rate", "DOUBLE_FAULT_RATE") { config.faultRate5xx = v }
if let v = rate("hang-rate", "DOUBLE_HANG_RATE") { config.hangRate = v }
if let v = rate("truncated-rate", "DOUBLE_TRUNCATED_RATE") { config.truncatedJSONRate = v }
if let v = rate("secondary-rate", "DOUBLE_SECONDARY_RATE") { config.secondaryLimitRate = v }
if let v = int("search-limit", "DOUBLE_SEARCH_LIMIT") { config.searchLimitPerMinute = max(0, v) }
if let v = int("core-limit", "DOUBLE_CORE_LIMIT") { config.coreLimitPerHour = max(0, v) }
if let v = int("limit-status", "DOUBLE_LIMIT_STATUS") {
  guard v == 403 || v == 429 else { fail("--limit-status must be 403 or 429") }
  config.rateLimitStatus = v
}
if let raw = option("mode", "DOUBLE_MODE"), raw != "none" {
  guard let mode = HostileMode(rawValue: raw) else { fail("--mode: unknown mode \(raw)") }
  config.faults.mode = mode
}
if option("tidy", "DOUBLE_TIDY") == "1" {
  config.realisticWire = false
  config.legacyItemRate = 0
  config.shortPageRate = 0
}
if let v = rate("legacy-rate", "DOUBLE_LEGACY_RATE") { config.legacyItemRate = v }
if let v = rate("short-page-rate", "DOUBLE_SHORT_PAGE_RATE") { config.shortPageRate = v }
if let v = option("public-url", "DOUBLE_PUBLIC_URL") { config.publicBaseURL = v }
if option("hostile", "DOUBLE_HOSTILE") == "0" { config.hostileFixtures = false }
if option("hostile-names", "DOUBLE_HOSTILE_NAMES") == "1" { config.hostileNames = true }

let double = GitHubDouble(configuration: config)
let bound: Int
do {
  bound = try double.start(host: host, port: port)
} catch {
  printError("github-double: cannot listen on \(host):\(port): \(error)")
  exit(1)
}
print("github-double listening on http://\(host):\(bound)")
fflush(nil)

// Signals arrive on a dispatch queue; the main task waits for the first one, drains, and exits 0.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
/// Installs SIGINT/SIGTERM sources; defined outside top-level code so the handlers are not main-actor
/// isolated (they run on a dispatch queue).
func installSignalHandlers(_ continuation: AsyncStream<Int32>.Continuation) -> [any DispatchSourceSignal] {
  [SIGINT, SIGTERM].map { sig in
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler { continuation.yield(sig) }
    source.resume()
    return source
  }
}

let (stream, continuation) = AsyncStream<Int32>.makeStream()
let signalSources = installSignalHandlers(continuation)  // kept alive for the life of the process
for await _ in stream { break }
await double.shutdown()
print("github-double: stopped")
exit(0)
