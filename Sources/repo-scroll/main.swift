import App
import Clocks
import CommandLineOptions
import Dispatch
import Foundation
import GitHubDouble
import RedisSharedStore

// Reads flags and environment, builds the app and serves until SIGINT or SIGTERM.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("repo-scroll: \(message)\n".utf8))
  exit(2)
}

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

/// The outcome of connecting to the shared store, handed from a task to the main thread.
final class StoreBox: @unchecked Sendable {
  // Written by one task before `ready.signal()` and read only after `ready.wait()`: the semaphore orders them.
  var result: Result<RedisStore?, RepoScrollApp.StartupError> = .success(nil)
  let ready = DispatchSemaphore(value: 0)
}
let storeBox = StoreBox()
// Detached: top-level code runs on the main actor, which is blocked in `wait()` meanwhile.
Task.detached { [storeBox, configuration, time] in
  do throws(RepoScrollApp.StartupError) {
    storeBox.result = .success(
      try await RepoScrollApp.connectSharedStore(configuration, time: time) { line in
        RepoScrollApp.logEvent(line, configuration: configuration, time: time)
      })
  } catch {
    storeBox.result = .failure(error)
  }
  storeBox.ready.signal()
}
storeBox.ready.wait()
let sharedStore: RedisStore?
switch storeBox.result {
case .success(let store): sharedStore = store
case .failure(let error): fail("\(error)")
}

let app: RepoScrollApp
do {
  app = try RepoScrollApp(configuration: configuration, sharedStore: sharedStore, time: time)
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
  // What the server's token may see: one warning line when it may see private repositories.
  Task { await app.checkServerToken() }
} catch {
  fail("cannot listen on \(configuration.host):\(configuration.port): \(error)")
}

// Signals arrive on a dispatch source rather than a C handler so shutdown can run async code.
let stopDemo = double
let settled = configuration
var signalSources: [any DispatchSourceSignal] = []
for signalNumber in [SIGINT, SIGTERM] {
  signal(signalNumber, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
  source.setEventHandler {
    RepoScrollApp.logEvent("draining connections", configuration: settled, time: time)
    // A watchdog: the server gives up on in-flight requests at the drain timeout and on handlers
    // that ignore cancellation 2 s later; whatever still holds the process then is not worth waiting
    // for, because a supervisor (systemd's TimeoutStopSec, a rolling restart) is waiting on the exit.
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(settled.drainTimeout + 5)) {
      RepoScrollApp.logEvent(
        "drain did not finish within --drain-timeout + 5 s; exiting", configuration: settled, time: time,
        level: "error")
      exit(1)
    }
    Task {
      await app.shutdown()
      sharedStore?.shutdown()
      await stopDemo?.shutdown()
      exit(0)
    }
  }
  source.resume()
  signalSources.append(source)
}
dispatchMain()
