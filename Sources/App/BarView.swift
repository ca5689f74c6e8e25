import Mustache

/// A card's stars bar: `percent` of the largest count in the list, and the colour `band`.
final class BarView: MustacheObject {
  let percent: Int
  let band: Int

  init(percent: Int, band: Int) {
    self.percent = percent
    self.band = band
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "percent": return .int(percent)
    case "band": return .int(band)
    default: return nil
    }
  }
}
