import Clocks
import Foundation
import HTTP
import HTTPServer
import TestSupport
import Testing

/// What one connection actually received for a `HostileCase`.
struct HostileOutcome: Equatable, Sendable, CustomStringConvertible {
  /// The status of each answer read, in order.
  var statuses: [Int] = []
  /// Whether the last answer carried `Connection: close`.
  var lastSaysClose = false
  /// Whether the server closed the connection (false: it served a follow-up request).
  var closed = false
  /// Bytes that arrived after the last expected answer and before the close.
  var bytesAfterLastAnswer = 0
  /// Whether any answer carried the secret marker.
  var secretSeen = false

  /// The outcome a case demands.
  static func expected(for hostile: HostileCase) -> HostileOutcome {
    HostileOutcome(statuses: hostile.statuses, lastSaysClose: hostile.closes, closed: hostile.closes)
  }

  var description: String {
    "statuses \(statuses), Connection: close \(lastSaysClose), closed \(closed), "
      + "\(bytesAfterLastAnswer) bytes after the last answer, secret seen \(secretSeen)"
  }
}

/// Runs corpus cases against a live server over raw sockets.
enum HostileRunner {
  /// The handler under attack: a few routes, static files for everything else.
  static func handler(files: StaticFiles) -> HTTPHandler {
    var router = Router()
    router.get("/hello") { _, _ in .text(.ok, "hello") }
    router.post("/echo") { request, _ in HTTPResponse(body: .bytes(request.body)) }
    router.get("/users/{name}") { _, context in .text(.ok, context.parameters["name"] ?? "") }
    router.fallback { request, _ in await files.response(for: request) }
    return router.handler
  }

  /// Starts a server for the corpus, runs `body` on its own thread, then shuts the server down.
  static func withServer<T: Sendable>(
    files: StaticFiles, _ body: @escaping @Sendable (Int) throws -> T
  ) async throws -> T {
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.headerTimeout = .seconds(1)
    return try await withLiveServer(configuration, handler: handler(files: files)) { live in
      try await onThread { try body(live.port) }
    }
  }

  /// Connects and sends the case's bytes in one go.
  static func open(_ hostile: HostileCase, port: Int) throws -> RawSocketClient {
    let client = try RawSocketClient(port: port, timeout: .seconds(5))
    try client.send(hostile.bytes)
    return client
  }

  /// Reads the answers to a case, then checks that the connection is closed or still serves.
  static func observe(_ hostile: HostileCase, on client: RawSocketClient) -> HostileOutcome {
    var outcome = HostileOutcome()
    for index in hostile.statuses.indices {
      let isLast = index == hostile.statuses.count - 1
      guard let response = try? client.readResponse(bodyExpected: !(hostile.head && isLast)) else { break }
      outcome.statuses.append(response.status)
      outcome.secretSeen = outcome.secretSeen || response.text.contains(AttackRoot.marker)
      outcome.lastSaysClose = response.headers.containsToken("close", in: "Connection")
    }
    if hostile.closes {
      // Nothing may follow the error answer (a pipelined request must not be served): only the close.
      if let rest = try? client.readUntilClose() {
        outcome.closed = true
        outcome.bytesAfterLastAnswer = rest.count
        outcome.secretSeen =
          outcome.secretSeen || String(decoding: rest, as: UTF8.self).contains(AttackRoot.marker)
      }
    } else {
      // The follow-up must get its own answer, which also proves the odd request was framed correctly.
      let followUp = try? client.request("GET", "/hello")
      outcome.closed = !(followUp?.status == 200 && followUp?.text == "hello\n")
    }
    return outcome
  }
}

/// Descriptors of this process that are TCP sockets with `port` at either end (the listener, the server's
/// side of each connection and the test's own clients), read from /proc/self/fd and /proc/net/tcp.
func socketDescriptors(port: Int) throws -> Int {
  guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else {
    throw RawClientError("no /proc/net/tcp")
  }
  defer { try? handle.close() }
  let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
  let suffix = ":" + String(format: "%04X", port)
  var inodes = Set<String>()
  for line in table.split(separator: "\n").dropFirst() {
    let fields = line.split(separator: " ")
    guard fields.count > 9, fields[9] != "0" else { continue }
    if fields[1].hasSuffix(suffix) || fields[2].hasSuffix(suffix) { inodes.insert(String(fields[9])) }
  }
  let fm = FileManager.default
  var count = 0
  for name in try fm.contentsOfDirectory(atPath: "/proc/self/fd") {
    guard let target = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
      target.hasPrefix("socket:["), target.hasSuffix("]")
    else { continue }
    if inodes.contains(String(target.dropFirst(8).dropLast())) { count += 1 }
  }
  return count
}

/// Descriptors of this process open on files below `folder` (static files read and not closed).
func fileDescriptors(under folder: String) throws -> Int {
  let fm = FileManager.default
  let real = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/"
  return try fm.contentsOfDirectory(atPath: "/proc/self/fd").filter { name in
    (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name))?.hasPrefix(real) == true
  }.count
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct HostileCorpusTests {
  @Test func corpusIsLargeWithUniqueNames() {
    expectTrue(HostileCorpus.cases.count >= 60)
    expectEqual(Set(HostileCorpus.cases.map(\.name)).count, HostileCorpus.cases.count)
  }

  @Test(arguments: HostileCorpus.cases)
  func answersExactly(_ hostile: HostileCase) async throws {
    let root = try AttackRoot()
    defer { root.remove() }
    let files = try StaticFiles(root: root.root, time: .system)
    let outcome = try await HostileRunner.withServer(files: files) { port in
      HostileRunner.observe(hostile, on: try HostileRunner.open(hostile, port: port))
    }
    expectEqual(outcome, .expected(for: hostile))
  }

  /// All cases at once on one server: a keep-alive connection opened before keeps being served, and
  /// every descriptor the corpus caused is released.
  @Test func serverOutlivesTheWholeCorpus() async throws {
    let root = try AttackRoot()
    defer { root.remove() }
    let files = try StaticFiles(root: root.root, time: .system)
    let problems = try await HostileRunner.withServer(files: files) { port -> [String] in
      let baseline = try socketDescriptors(port: port)
      var problems: [String] = []
      let keeper = try RawSocketClient(port: port)
      func keeperServed(_ when: String) throws {
        let response = try keeper.request("GET", "/hello")
        if response.status != 200 || response.text != "hello\n" {
          problems.append("keep-alive connection \(when): \(response.status)")
        }
      }
      try keeperServed("before the corpus")
      let clients = try HostileCorpus.cases.map { try HostileRunner.open($0, port: port) }
      for (index, (hostile, client)) in zip(HostileCorpus.cases, clients).enumerated() {
        let outcome = HostileRunner.observe(hostile, on: client)
        if outcome != .expected(for: hostile) { problems.append("\(hostile.name): \(outcome)") }
        client.close()
        if index % 10 == 9 { try keeperServed("after case \(index)") }
      }
      try keeperServed("after the corpus")
      let fresh = try RawSocketClient(port: port)
      if try fresh.request("GET", "/file.txt").text != AttackRoot.fileText {
        problems.append("a new connection was not served after the corpus")
      }
      fresh.close()
      keeper.close()
      // The server notices the closes asynchronously; its descriptors must all be gone soon after.
      var open = try socketDescriptors(port: port)
      for _ in 0..<100 where open != baseline {
        sleepFor(.milliseconds(50))  // Polls: the kernel's descriptor table has no event to await.
        open = try socketDescriptors(port: port)
      }
      if open != baseline { problems.append("socket descriptors: \(baseline) before, \(open) after") }
      let files = try fileDescriptors(under: root.base)
      if files != 0 { problems.append("\(files) descriptors left open on static files") }
      return problems
    }
    expectTrue(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }
}
