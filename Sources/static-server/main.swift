import Clocks
import CommandLineOptions
import Glibc
import HTTP
import HTTPServer
import Sockets

// A minimal static file server for benchmarks (see --help).
// SIGINT/SIGTERM drain gracefully and exit 0.

// The signals are taken from here on; the main task waits for the first, then drains the server.
let signals = TerminationSignals.installOrExit("static-server")

/// What static-server is started with.
struct Settings: Sendable {
  var server = HTTPServerConfiguration(time: .system)
  var root = "."
}

let table = OptionTable<Settings>(
  program: "static-server", summary: "serves one folder's files with the bare HTTPServer (for benchmarks).",
  options: [
    Option("--root", env: "STATIC_ROOT", value: "DIR", help: "the folder to serve (.)") { $0.root = $1 },
    Option("--port", env: "STATIC_PORT", value: "N", help: "listen port, 0 for any (8080)") {
      $0.server.port = try OptionValue.int($1, in: 0...65535)
    },
    Option("--host", env: "STATIC_HOST", value: "ADDR", help: "listen address (127.0.0.1)") {
      $0.server.host = $1
    },
    // Fractional seconds, so that attack scripts can use short timeouts.
    Option(
      "--header-timeout", env: "STATIC_HEADER_TIMEOUT", value: "S",
      help: "seconds to receive a request head (10)"
    ) {
      $0.server.headerTimeout = .milliseconds(Int(try OptionValue.double($1, in: 0.001...86_399) * 1000))
    },
  ])
let settings = table.settingsOrExit(Settings())
let configuration = settings.server
let root = settings.root

let files: StaticFiles
do {
  files = try StaticFiles(root: root, time: configuration.time)
} catch {
  say("static-server: \(error)")
  exit(1)
}
let server = HTTPServer(configuration: configuration) { request, _ in
  await files.response(for: request)
}
let port: Int
do {
  port = try server.start()
} catch {
  say("static-server: \(error)")
  exit(1)
}
say("static-server listening on \(configuration.host):\(port), root \(root)")

var received: Int32 = 0
for await number in signals {
  received = number
  break
}
say("static-server: signal \(received), draining")
// The main thread has nothing else to do while the server drains.
await server.shutdown()
exit(0)

/// Writes a line straight to standard output, unbuffered, so scripts see it at once.
func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}
