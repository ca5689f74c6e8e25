import Foundation

/// Where test tools installed from PyPI live (axe-core, geckodriver): asked of `python3` itself.
enum Python {
  /// The trimmed standard output of `python3 -c code`, or nil when it fails or prints nothing.
  ///
  /// Through `popen`, whose `pclose` waits for this child by its pid: this runs inside lazy statics
  /// on the concurrency pool's threads, where a missed exit would hold a thread and the initialiser's
  /// lock for good (Foundation's `Process` once missed one; see `TestCertificates`).
  static func output(_ code: String) -> String? {
    let quoted = "'" + code.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    guard let stream = popen("python3 -c \(quoted) 2>/dev/null", "r") else { return nil }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = fread(&buffer, 1, buffer.count, stream)
      if count <= 0 { break }
      output += buffer[0..<count]
    }
    let status = pclose(stream)
    let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return status == 0 && !text.isEmpty ? text : nil
  }
}
