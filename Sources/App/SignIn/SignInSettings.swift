import CommandLineOptions
import Encodings
import HTTP

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How the sign-in flags are read: the client id, the secret and session key files, the public URL.
/// Errors name the flag's value or file, never a secret.
enum SignInSettings {
  /// GitHub's client ids are short ASCII tokens (`Iv1.…`, `Ov23…`).
  static func clientID(_ value: String) throws(OptionError) -> String {
    guard (1...100).contains(value.utf8.count), URLEncoding.isUnreserved(value) else {
      throw OptionError("expected an OAuth client id of letters, digits, '.', '-' or '_'")
    }
    return value
  }

  /// The first line of `path`, without surrounding whitespace.
  static func secret(fromFile path: String) throws(OptionError) -> String {
    // One reader for every secret file (size bound, empty refused); the secret is its first line.
    let text = try SecretSource.read(file: path)
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    let secret = String(line.trimmingWhitespace)
    guard !secret.isEmpty, secret.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
      throw OptionError("\(path) holds no usable secret (one line of printable ASCII)")
    }
    return secret
  }

  /// A session key file: exactly 32 raw bytes, or 64 hex digits (with an optional trailing newline,
  /// as `openssl rand -hex 32` writes).
  static func sessionKey(fromFile path: String) throws(OptionError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw OptionError("cannot read \(path)")
    }
    let bytes = Array(data)
    if bytes.count == 32 { return bytes }
    let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
    if text.utf8.count == 64, let key = hexBytes(String(text)) { return key }
    throw OptionError("\(path) must hold exactly 32 bytes or 64 hex digits (it holds \(bytes.count) bytes)")
  }

  /// An absolute http(s) origin with an optional path prefix, no query or fragment, without a trailing slash.
  static func publicURL(_ value: String) throws(OptionError) -> String {
    let url = try OptionValue.url(value)
    guard let origin = PublicOrigin(url) else {
      throw OptionError("expected http(s)://host[:port][/path] without query or fragment, got \(value)")
    }
    return origin.url
  }

  private static func hexBytes(_ text: String) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(32)
    var high: UInt8?
    for byte in text.utf8 {
      guard let nibble = URLEncoding.hexValue(byte) else { return nil }
      if let h = high {
        out.append(h << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    return high == nil ? out : nil
  }
}
