// Runs the GitHub double standalone: flags, then DOUBLE_* environment variables, then defaults.
import Clocks
import CommandLineOptions
import GitHubDouble
import Sockets

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

// First: a SIGINT or SIGTERM from here on waits for the shutdown at the end, whenever it comes.
let signals = TerminationSignals.installOrExit("github-double")

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

// The main task waits for the first signal, drains, and exits 0.
for await _ in signals { break }
await double.shutdown()
print("github-double: stopped")
exit(0)
