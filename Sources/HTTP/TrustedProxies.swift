/// Which peers may speak for the client: `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Request-Id`
/// are believed only from these addresses, and ignored (not even parsed) from any other.
///
/// ```swift
/// let proxies = try TrustedProxies(parsing: "127.0.0.1,10.0.0.0/8")
/// var headers = HTTPHeaders()
/// headers.add(name: "X-Forwarded-For", value: "203.0.113.7, 10.0.0.2")
/// proxies.resolve(peer: "127.0.0.1", headers: headers).address  // "203.0.113.7"
/// ```
public struct TrustedProxies: Sendable {
  /// The trusted blocks; empty trusts nobody (every request is the peer's own).
  public let networks: [IPNetwork]

  /// Trusts `networks`.
  public init(_ networks: [IPNetwork] = []) { self.networks = networks }

  /// Parses a comma-separated list of CIDR blocks or addresses (spaces allowed; empty trusts nobody).
  public init(parsing list: String) throws(TrustedProxiesError) {
    var networks: [IPNetwork] = []
    for item in list.split(separator: ",") {
      let text = item.trimmingSpaces
      if text.isEmpty { continue }
      guard let network = IPNetwork(text) else { throw TrustedProxiesError(entry: String(text)) }
      networks.append(network)
    }
    self.networks = networks
  }

  /// Whether any block holds `address`.
  public func trusts(_ address: IPAddress) -> Bool {
    networks.contains { $0.contains(address) }
  }

  /// The client a request comes from. From a trusted peer, `X-Forwarded-For` is walked from the
  /// right, skipping trusted hops: the first untrusted address is the client (the hops left of it
  /// could be forged by that client). If every hop is trusted the leftmost is the client; a hop that
  /// is not an address ends the walk at the trusted proxy that added it. `X-Forwarded-Proto` is the
  /// nearest proxy's (the last value). From any other peer the headers are ignored.
  public func resolve(peer: String, headers: HTTPHeaders) -> ForwardedClient {
    guard !networks.isEmpty, let peerAddress = IPAddress(peer), trusts(peerAddress) else {
      return ForwardedClient(address: peer, isSecure: false, requestID: nil)
    }
    var client = peerAddress
    let hops = headers.values(for: "X-Forwarded-For").flatMap { $0.split(separator: ",") }
    // Bounded walk: a proxy chain longer than this is not a chain but an attack on the parser.
    for hop in hops.reversed().prefix(32) {
      guard let address = IPAddress(hop.trimmingSpaces) else { break }
      client = address
      if !trusts(address) { break }
    }
    let proto = headers["X-Forwarded-Proto"]?.split(separator: ",").last?.trimmingSpaces
    let isSecure = proto.map { HTTPHeaders.equalsIgnoringCase($0, "https") } ?? false
    let requestID = headers["X-Request-Id"].flatMap { RequestID.isValid($0) ? $0 : nil }
    return ForwardedClient(address: client.description, isSecure: isSecure, requestID: requestID)
  }
}

/// The real client of a request, as `TrustedProxies.resolve` found it.
public struct ForwardedClient: Sendable, Equatable {
  /// The client's address.
  public var address: String
  /// Whether the client spoke HTTPS to the trusted proxy.
  public var isSecure: Bool
  /// A valid request id the trusted proxy sent, if any.
  public var requestID: String?

  /// A client from its parts.
  public init(address: String, isSecure: Bool, requestID: String?) {
    self.address = address
    self.isSecure = isSecure
    self.requestID = requestID
  }
}

/// An entry of `--trusted-proxies` that is not an address or CIDR block.
public struct TrustedProxiesError: Error, CustomStringConvertible, Sendable {
  /// The entry as given.
  public let entry: String
  /// Names the entry that could not be read.
  public var description: String { "not an IP address or CIDR block: \(entry)" }
}

/// Request ids: the ones a trusted proxy may hand on, and the check they pass.
public enum RequestID {
  /// 1 to 64 bytes of letters, digits, `-`, `_` and `.`: safe in a header, a log line and JSON
  /// without escaping (nginx's `$request_id` is 32 hex digits).
  public static func isValid(_ id: String) -> Bool {
    let bytes = id.utf8
    guard (1...64).contains(bytes.count) else { return false }
    return bytes.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
        true
      default: false
      }
    }
  }
}
