// Runs the GitHub double standalone: flags, then DOUBLE_* environment variables, then defaults.
import Clocks
import CommandLineOptions
import Dispatch
import GitHubDouble

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes to standard error through the file descriptor (the C `stderr` global is not concurrency-safe).
func printError(_ text: String) {
  var bytes = Array(text.utf8)
  bytes.append(10)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // reads only the array's own bytes
}

let launch = DoubleLaunch.table.settingsOrExit(DoubleLaunch())
let host = launch.host
let port = launch.port
let config = launch.finished

let double = GitHubDouble(configuration: config, time: .system)
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
