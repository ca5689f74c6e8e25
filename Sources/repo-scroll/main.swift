import App
import Clocks
import CommandLineOptions
import Dispatch
import Foundation
import GitHubDouble
import RedisSharedStore
import Sockets

// Reads flags and environment, builds the app and serves until SIGINT or SIGTERM.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("repo-scroll: \(message)\n".utf8))
  exit(2)
}

// First: a SIGINT or SIGTERM from here on waits for the drain at the end, whenever it comes.
let signals = TerminationSignals.installOrExit("repo-scroll")

// libcurl (with NOSIGNAL set) leaves SIGPIPE alone and documents corner cases where a closed peer can
// still raise it; the process, not a library, decides to ignore it.
signal(SIGPIPE, SIG_IGN)

var configuration = AppConfiguration()
/// `--list-routes`: print the route table of the app these flags configure, then exit (read by
/// `script/redbot`). Taken here, by the executable, since it configures nothing.
let listRoutesHelp = "  --list-routes               print the routes (method, path, metrics name), then exit"
let listRoutes = CommandLine.arguments.dropFirst().contains("--list-routes")
do {
  let arguments = Array(CommandLine.arguments.dropFirst()).filter { $0 != "--list-routes" }
  if case .help(let text) = try configuration.parse(
    arguments: arguments, environment: ProcessInfo.processInfo.environment)
  {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let at = lines.firstIndex { $0.hasPrefix("  --version") } ?? lines.endIndex
    print((lines[..<at] + [Substring(listRoutesHelp)] + lines[at...]).joined(separator: "\n"))
    exit(0)
  }
  if configuration.showVersion {
    print(BuildInfo.versionLine)
    exit(0)
  }
} catch {
  fail("\(error)")
}

// The one clock: everything below that reads the time gets it from here.
let time = TimeSource.system

var double: GitHubDouble?
if configuration.demo {
  var doubleConfiguration = DoubleConfiguration()
  doubleConfiguration.seed = configuration.demoSeed
  doubleConfiguration.repositoryCount = configuration.demoRepositories
  doubleConfiguration.ownerCount = max(1, configuration.demoRepositories / 10)
  guard let latency = LatencyRange(parsing: configuration.demoLatency) else {
    fail("--demo-latency: expected MS or MIN..MAX milliseconds, got \(configuration.demoLatency)")
  }
  doubleConfiguration.faults.latency = LatencySpec(all: latency)
  let demo = GitHubDouble(configuration: doubleConfiguration, time: time)
  do {
    let port = try demo.start(host: "127.0.0.1", port: 0)
    configuration.githubAPI = "http://127.0.0.1:\(port)"
    configuration.avatarBase = "http://127.0.0.1:\(port)"
    configuration.githubToken = nil
    // Sign in with GitHub against the double's OAuth side, unless the operator configured their own app.
    // The demo double knows both apps (`DoubleConfiguration.oauthClients`); `--demo-app` picks one.
    if configuration.githubClientID == nil {
      let app = configuration.demoApp == "oauth-app"
      configuration.githubClientID =
        app ? DoubleConfiguration.demoClientID : DoubleConfiguration.demoAppClientID
      configuration.githubClientSecret =
        app ? DoubleConfiguration.demoClientSecret : DoubleConfiguration.demoAppClientSecret
      configuration.githubWebURL = "http://127.0.0.1:\(port)"
    }
  } catch {
    fail("cannot start the demo GitHub double: \(error)")
  }
  double = demo
}

// The composition root: the shared store, then the app on it, built once.
let app: RepoScrollApp
let sharedStore: RedisStore?
do {
  let built = try await RepoScrollApp.compose(configuration, time: time)
  app = built.app
  sharedStore = built.sharedStore
} catch {
  fail("\(error)")
}

if listRoutes {
  for line in app.routeListing { print(line) }
  exit(0)
}

do {
  let port = try app.start()
  var mode = configuration.demo ? " (demo: offline GitHub double)" : ""
  if sharedStore != nil { mode += " (shared mode: Redis)" }
  print("RepoScroll \(BuildInfo.version) listening on http://\(configuration.host):\(port)/\(mode)")
  fflush(nil)  // flushes every stream; the listening line must reach a pipe at once
} catch {
  fail("cannot listen on \(configuration.host):\(configuration.port): \(error)")
}

/// Starts the watchdog on draining: the server gives up on in-flight requests at the drain timeout
/// and on handlers that ignore cancellation 2 s later; whatever still holds the process then is not
/// worth waiting for, because a supervisor (systemd's TimeoutStopSec, a rolling restart) is waiting.
func startDrainWatchdog(_ settled: AppConfiguration, time: TimeSource) {
  DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(settled.drainTimeout + 5)) {
    RepoScrollApp.logEvent(
      "drain did not finish within --drain-timeout + 5 s; exiting", configuration: settled, time: time,
      level: "error")
    exit(1)
  }
}

let stopDemo = double
// What the server's token may see: one warning line when it may see private repositories. It runs
// beside the wait for a signal, and a signal does not wait for it.
await withTaskGroup(of: Void.self) { group in
  group.addTask { await app.checkServerToken() }
  for await _ in signals { break }
  RepoScrollApp.logEvent("draining connections", configuration: configuration, time: time)
  startDrainWatchdog(configuration, time: time)
  await app.shutdown()
  sharedStore?.shutdown()
  await stopDemo?.shutdown()
  exit(0)
}
