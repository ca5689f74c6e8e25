import Glibc

/// An IPv4 or IPv6 address as 128 bits; IPv4 is held IPv4-mapped (`::ffff:a.b.c.d`), so one prefix
/// test serves both families and `::ffff:10.0.0.1` from a dual-stack socket matches `10.0.0.0/8`.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
  /// The high and low 64 bits, in network order.
  let high: UInt64
  let low: UInt64

  /// Parses an IPv4 or IPv6 literal (IPv6 may be in brackets); nil for anything else.
  public init?(_ text: some StringProtocol) {
    var literal = Substring(text)
    if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
    guard !literal.isEmpty, literal.utf8.count <= 45 else { return nil }
    var v4 = in_addr()
    var v6 = in6_addr()
    let string = String(literal)
    if inet_pton(AF_INET, string, &v4) == 1 {
      high = 0
      low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4.s_addr))
    } else if inet_pton(AF_INET6, string, &v6) == 1 {
      // The 16 bytes are read within the closure only.
      let bytes = withUnsafeBytes(of: &v6) { Array($0) }
      var h: UInt64 = 0
      var l: UInt64 = 0
      for i in 0..<8 { h = h << 8 | UInt64(bytes[i]) }
      for i in 8..<16 { l = l << 8 | UInt64(bytes[i]) }
      high = h
      low = l
    } else {
      return nil
    }
  }

  /// Whether the address is IPv4 (mapped).
  public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

  /// The address written back: dotted quad for IPv4, `inet_ntop`'s form for IPv6.
  public var description: String {
    if isIPv4 {
      let v = UInt32(truncatingIfNeeded: low)
      return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
    }
    var v6 = in6_addr()
    withUnsafeMutableBytes(of: &v6) { raw in
      for i in 0..<8 { raw[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i))) }
      for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i))) }
    }
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
    return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// A CIDR block such as `10.0.0.0/8` or `fd00::/8`; a bare address is a block of one.
///
/// ```swift
/// let network = IPNetwork("10.0.0.0/8")!
/// network.contains(IPAddress("10.1.2.3")!)  // true
/// ```
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
  /// The first address of the block.
  public let address: IPAddress
  /// Leading bits that must match, counted in the 128-bit (IPv4-mapped) space.
  let bits: Int

  /// Parses `ADDR` or `ADDR/PREFIX` (0...32 for IPv4, 0...128 for IPv6); nil for anything else.
  public init?(_ text: some StringProtocol) {
    let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard let first = parts.first, let address = IPAddress(first) else { return nil }
    let maximum = address.isIPv4 ? 32 : 128
    var prefix = maximum
    if parts.count == 2 {
      guard parts[1].utf8.count <= 3, let n = Int(parts[1]), (0...maximum).contains(n) else { return nil }
      prefix = n
    }
    bits = address.isIPv4 ? 96 + prefix : prefix
    self.address = IPNetwork.masked(address, bits: bits)
  }

  /// Whether `candidate` lies in the block.
  public func contains(_ candidate: IPAddress) -> Bool {
    IPNetwork.masked(candidate, bits: bits) == address
  }

  /// The block in CIDR notation, IPv4 blocks without their mapped prefix.
  public var description: String {
    "\(address)/\(address.isIPv4 ? bits - 96 : bits)"
  }

  private static func masked(_ a: IPAddress, bits: Int) -> IPAddress {
    func mask(_ n: Int) -> UInt64 { n <= 0 ? 0 : (n >= 64 ? .max : ~(UInt64.max >> UInt64(n))) }
    return IPAddress(high: a.high & mask(bits), low: a.low & mask(bits - 64))
  }
}

extension IPAddress {
  init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }
}
