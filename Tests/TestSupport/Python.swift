import Foundation

/// Where test tools installed from PyPI live (axe-core, geckodriver): asked of `python3` itself.
enum Python {
  /// The trimmed standard output of `python3 -c code`, or nil when it fails or prints nothing.
  static func output(_ code: String) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", code]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = Pipe()
    guard (try? process.run()) != nil else { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return process.terminationStatus == 0 && !text.isEmpty ? text : nil
  }
}
