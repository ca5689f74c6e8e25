import App
import Dispatch
import Foundation
import GitHubDouble

// Reads flags and environment, builds the app and serves until SIGINT or SIGTERM.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("repo-scroll: \(message)\n".utf8))
  exit(2)
}

var configuration = AppConfiguration()
do {
  let arguments = Array(CommandLine.arguments.dropFirst())
  if case .help(let text) = try configuration.parse(
    arguments: arguments, environment: ProcessInfo.processInfo.environment)
  {
    print(text)
    exit(0)
  }
} catch {
  fail("\(error)")
}

var double: GitHubDouble?
if configuration.demo {
  var doubleConfiguration = DoubleConfiguration()
  doubleConfiguration.seed = configuration.demoSeed
  guard let latency = LatencyRange(parsing: configuration.demoLatency) else {
    fail("--demo-latency: expected MS or MIN..MAX milliseconds, got \(configuration.demoLatency)")
  }
  doubleConfiguration.latency = LatencySpec(all: latency)
  let demo = GitHubDouble(configuration: doubleConfiguration)
  do {
    let port = try demo.start(host: "127.0.0.1", port: 0)
    configuration.githubAPI = "http://127.0.0.1:\(port)"
    configuration.avatarBase = "http://127.0.0.1:\(port)"
    configuration.githubToken = nil
  } catch {
    fail("cannot start the demo GitHub double: \(error)")
  }
  double = demo
}

let app: RepoScrollApp
do {
  app = try RepoScrollApp(configuration: configuration)
} catch {
  fail("\(error)")
}

do {
  let port = try app.start()
  let mode = configuration.demo ? " (demo: offline GitHub double)" : ""
  print("RepoScroll listening on http://\(configuration.host):\(port)/\(mode)")
  fflush(nil)  // flushes every stream; the listening line must reach a pipe at once
} catch {
  fail("cannot listen on \(configuration.host):\(configuration.port): \(error)")
}

// Signals arrive on a dispatch source rather than a C handler so shutdown can run async code.
let stopDemo = double
var signalSources: [DispatchSourceSignal] = []
for signalNumber in [SIGINT, SIGTERM] {
  signal(signalNumber, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
  source.setEventHandler {
    FileHandle.standardError.write(Data("repo-scroll: draining connections\n".utf8))
    Task {
      await app.shutdown()
      await stopDemo?.shutdown()
      exit(0)
    }
  }
  source.resume()
  signalSources.append(source)
}
dispatchMain()
