/// A server's host and port, as a URL or a sentinel names it.
public struct RedisServerAddress: Sendable, Hashable, CustomStringConvertible {
  /// Host name or IP address (IPv6 without brackets).
  public var host: String
  /// TCP port.
  public var port: Int

  /// The address as given.
  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Parses `host`, `host:port`, `[ipv6]` or `[ipv6]:port`; without a port, `defaultPort`.
  public init(parsing text: Substring, defaultPort: Int) throws(RedisURLError) {
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw .missingHost }
      host = String(text[text.index(after: text.startIndex)..<close])
      let after = text[text.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalidPort(String(after.prefix(16))) }
        portText = after.dropFirst()
      }
    } else if let colon = text.lastIndex(of: ":") {
      host = String(text[..<colon])
      portText = text[text.index(after: colon)...]
    } else {
      host = String(text)
    }
    if host.isEmpty { throw .missingHost }
    port = defaultPort
    if let portText {
      guard portText.count <= 5, portText.allSatisfy(\.isASCII), let value = Int(portText),
        (1...65535).contains(value)
      else { throw .invalidPort(String(portText.prefix(16))) }
      port = value
    }
  }

  /// `host:port`, an IPv6 host in brackets.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
