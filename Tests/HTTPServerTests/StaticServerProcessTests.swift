import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(3))) struct StaticServerProcessTests {
  /// The static-server binary next to the test build.
  static func binary() throws -> String {
    try ProcessRunner.builtProduct("static-server")
  }

  @Test func servesFilesAndExitsZeroOnSIGTERM() async throws {
    let fixture = try StaticFixture()
    try TestTier.startingProcess("static-server")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try Self.binary())
    process.arguments = ["--root", fixture.root, "--port", "0"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let port = try await onThread { () -> Int in
      var text = ""
      while !text.contains("\n") {
        let data = pipe.fileHandleForReading.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
      }
      guard let range = text.range(of: #":(\d+),"#, options: .regularExpression),
        let port = Int(text[range].dropFirst().dropLast())
      else { throw RawClientError("no port in \(text)") }
      return port
    }
    let body = try runCurl(["-s", "http://127.0.0.1:\(port)/css/app.css"])
    expectEqual(body, "body{color:red}")
    process.terminate()  // SIGTERM
    try await onThread { process.waitUntilExit() }
    expectEqual(process.terminationReason, .exit)
    expectEqual(process.terminationStatus, 0)
  }
}
