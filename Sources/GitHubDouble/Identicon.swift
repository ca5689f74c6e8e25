/// GitHub-style identicons: a mirrored 5×5 grid in one colour on a light background.
enum Identicon {
  /// A PNG identicon for `id` at `size` × `size` pixels.
  static func png(id: Int, size: Int, seed: UInt64) -> [UInt8] {
    let h = SplitMix64.hash(UInt64(bitPattern: Int64(id)), seed, 0x1D)
    var cells = [Bool](repeating: false, count: 25)
    for row in 0..<5 {
      for col in 0..<3 {
        let on = (h >> UInt64(row * 3 + col)) & 1 == 1
        cells[row * 5 + col] = on
        cells[row * 5 + 4 - col] = on
      }
    }
    let fg: (UInt8, UInt8, UInt8) = (
      UInt8(40 + (h >> 20) % 180), UInt8(40 + (h >> 28) % 180), UInt8(40 + (h >> 36) % 180)
    )
    let bg: (UInt8, UInt8, UInt8) = (240, 240, 240)
    var rgb = [UInt8](repeating: 0, count: size * size * 3)
    for y in 0..<size {
      // Half a cell of padding on each side: 6 cell-widths across the image.
      let gy = (y * 12 / size - 1) >> 1
      for x in 0..<size {
        let gx = (x * 12 / size - 1) >> 1
        let on = gx >= 0 && gx < 5 && gy >= 0 && gy < 5 && cells[gy * 5 + gx]
        let c = on ? fg : bg
        let p = (y * size + x) * 3
        rgb[p] = c.0
        rgb[p + 1] = c.1
        rgb[p + 2] = c.2
      }
    }
    return PNGEncoder.encode(width: size, height: size, rgb: rgb)
  }
}
