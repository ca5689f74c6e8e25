import Glibc

/// Where secrets come from besides the environment: a file named by a `--…-file` flag, or a systemd
/// credential (`LoadCredential=NAME:…` puts it in `$CREDENTIALS_DIRECTORY/NAME`). One reader for
/// every secret, so each gets the same checks: a size bound, one trailing newline removed, and an
/// empty file refused rather than taken as "no secret".
///
/// ```swift
/// let token = try SecretSource.credential("github-token", environment: environment)
/// let key = try SecretSource.read(file: "/etc/reposcroll/session-key")
/// ```
public enum SecretSource {
  /// Secrets are short; a larger file is a wrong path, not a secret.
  public static let maxBytes = 64 * 1024

  /// The contents of `path` without one trailing newline (`\n` or `\r\n`).
  public static func read(file path: String) throws(OptionError) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw OptionError("cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      // Writes only within the array's own storage, at most its count.
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw OptionError("cannot read \(path): \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      bytes += chunk[0..<n]
      if bytes.count > maxBytes { throw OptionError("\(path) is larger than \(maxBytes) bytes") }
    }
    if bytes.last == 10 { bytes.removeLast() }
    if bytes.last == 13 { bytes.removeLast() }
    guard !bytes.isEmpty else { throw OptionError("\(path) is empty") }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw OptionError("\(path) is not UTF-8 text")
    }
    return text
  }

  /// The systemd credential `name` when `CREDENTIALS_DIRECTORY` is set and holds it; nil otherwise.
  /// A credential that exists but cannot be read (or is empty) is an error, not a silent nil.
  public static func credential(_ name: String, environment: [String: String]) throws(OptionError)
    -> String?
  {
    guard let path = credentialPath(name, environment: environment) else { return nil }
    do {
      return try read(file: path)
    } catch {
      throw OptionError("credential \(name): \(error.description)")
    }
  }

  /// The path of the systemd credential `name` when `CREDENTIALS_DIRECTORY` is set and holds it, for
  /// secrets that are bytes rather than text (a raw session key); nil otherwise.
  public static func credentialPath(_ name: String, environment: [String: String]) -> String? {
    guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
      !name.isEmpty, !name.contains("/")
    else { return nil }
    let path = directory + "/" + name
    return access(path, F_OK) == 0 ? path : nil
  }
}
