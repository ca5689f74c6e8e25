import Glibc
import HTTP
import HTTPServer

// A minimal static file server for benchmarks: --root DIR --port N --host ADDR.
// SIGINT/SIGTERM drain gracefully and exit 0.

// Block the signals in every thread (loop threads inherit the mask); the main thread waits for them.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

var configuration = HTTPServerConfiguration()
var root = "."
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
  guard let value = arguments.popFirst() else {
    say("missing value for \(flag)")
    exit(2)
  }
  switch flag {
  case "--root": root = value
  case "--port":
    guard let port = Int(value) else {
      say("bad port \(value)")
      exit(2)
    }
    configuration.port = port
  case "--host": configuration.host = value
  default:
    say("usage: static-server --root DIR [--port N] [--host ADDR]")
    exit(2)
  }
}

let files: StaticFiles
do {
  files = try StaticFiles(root: root)
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
sigwait(&signals, &received)
say("static-server: signal \(received), draining")
let done = Semaphore()
Task.detached {
  await server.shutdown()
  done.signal()
}
done.wait()
exit(0)

/// A one-shot wake-up for the main thread.
final class Semaphore: @unchecked Sendable {
  // @unchecked Sendable: sem_t is designed for use across threads; the pointer is never freed (one per process).
  private let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
  init() { sem_init(sem, 0, 0) }
  func signal() { sem_post(sem) }
  func wait() { while sem_wait(sem) != 0 && errno == EINTR {} }
}

/// Writes a line straight to standard output, unbuffered, so scripts see it at once.
func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}
