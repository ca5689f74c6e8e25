/// Encodes 8-bit RGB images as PNG with stored (uncompressed) deflate blocks: no zlib needed.
public enum PNGEncoder {
  /// The eight-byte PNG signature.
  public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// A PNG of `width` × `height` pixels; `rgb` holds 3 bytes per pixel, row by row.
  public static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
    precondition(rgb.count == width * height * 3, "pixel buffer size")
    var raw: [UInt8] = []
    raw.reserveCapacity(height * (1 + width * 3))
    for y in 0..<height {
      raw.append(0)  // filter type None
      raw.append(contentsOf: rgb[(y * width * 3)..<((y + 1) * width * 3)])
    }
    var out = signature
    var ihdr: [UInt8] = []
    ihdr.appendBigEndian(UInt32(width))
    ihdr.appendBigEndian(UInt32(height))
    ihdr.append(contentsOf: [8, 2, 0, 0, 0])  // depth 8, RGB, deflate, adaptive filters, no interlace
    appendChunk("IHDR", ihdr, to: &out)
    appendChunk("IDAT", zlibStored(raw), to: &out)
    appendChunk("IEND", [], to: &out)
    return out
  }

  /// A zlib stream made of stored deflate blocks (at most 65,535 bytes each).
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    out.reserveCapacity(data.count + data.count / 65535 * 5 + 16)
    var offset = 0
    repeat {
      let n = min(65535, data.count - offset)
      let final: UInt8 = offset + n == data.count ? 1 : 0
      out.append(final)  // BTYPE 00 = stored
      out.append(UInt8(n & 0xFF))
      out.append(UInt8(n >> 8))
      out.append(UInt8(~n & 0xFF))
      out.append(UInt8((~n >> 8) & 0xFF))
      out.append(contentsOf: data[offset..<(offset + n)])
      offset += n
    } while offset < data.count
    out.appendBigEndian(adler32(data))
    return out
  }

  private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
    out.appendBigEndian(UInt32(data.count))
    let typeBytes = Array(type.utf8)
    out.append(contentsOf: typeBytes)
    out.append(contentsOf: data)
    var crc = CRC32()
    crc.update(typeBytes)
    crc.update(data)
    out.appendBigEndian(crc.value)
  }

  /// Adler-32 of `data`, as zlib requires.
  public static func adler32(_ data: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    var i = 0
    while i < data.count {
      // 5552 is the largest run before the sums can overflow 32 bits.
      let end = min(i + 5552, data.count)
      while i < end {
        a &+= UInt32(data[i])
        b &+= a
        i += 1
      }
      a %= 65521
      b %= 65521
    }
    return b << 16 | a
  }
}

/// CRC-32 (ISO-HDLC), as PNG chunks require.
public struct CRC32: Sendable {
  private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }
  private var crc: UInt32 = 0xFFFF_FFFF

  /// A fresh checksum.
  public init() {}

  /// Feeds bytes.
  public mutating func update(_ bytes: [UInt8]) {
    let t = CRC32.table
    var c = crc
    for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    crc = c
  }

  /// The checksum of everything fed so far.
  public var value: UInt32 { crc ^ 0xFFFF_FFFF }
}

extension Array where Element == UInt8 {
  mutating func appendBigEndian(_ v: UInt32) {
    append(UInt8(v >> 24))
    append(UInt8((v >> 16) & 0xFF))
    append(UInt8((v >> 8) & 0xFF))
    append(UInt8(v & 0xFF))
  }
}
