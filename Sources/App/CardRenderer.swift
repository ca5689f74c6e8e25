import GitHub
import Mustache
import Synchronization

/// Renders cards through `partials/card`, memoised per repository: the first render of a repository
/// uses sentinels for the fields that depend on the list (position, set size, bar width) or on the
/// clock (the relative update time), and later renders of the same data only fill those slots in.
/// The output is byte for byte what the template gives (a test compares both paths).
final class CardRenderer: Sendable {
  /// A field filled in per render.
  enum Slot: UInt8, Sendable {
    case position = 80  // "P"
    case setsize = 83  // "S"
    case percent = 66  // "B"
    case updated = 85  // "U"
  }

  /// One repository's card (plain or trigger) as static pieces around slots; a class so a cache read is one retain.
  final class Entry: Sendable {
    let repository: Repository
    /// `pieces.count == slots.count + 1`.
    let pieces: [[UInt8]]
    let slots: [Slot]

    init(repository: Repository, pieces: [[UInt8]], slots: [Slot]) {
      self.repository = repository
      self.pieces = pieces
      self.slots = slots
    }
  }

  private let templates: TemplateLibrary
  private let entries = Mutex<[Int: Entry]>([:])
  private let limit: Int
  /// Random per process, so no repository text can forge a slot.
  private let marker: [UInt8]

  /// A renderer over `templates` keeping at most `limit` cards.
  init(templates: TemplateLibrary, limit: Int = 1536) {
    self.templates = templates
    self.limit = limit
    var generator = SystemRandomNumberGenerator()
    marker = Array("\u{1}rs\(String(generator.next() as UInt64, radix: 36))".utf8)
  }

  /// Appends the rendered card to `buffer`.
  func render(_ card: CardView, into buffer: inout [UInt8]) throws(MustacheError) {
    // The trigger card differs in an attribute, so it is kept apart from the plain one.
    let id = card.repository.id * 2 + (card.prefetch ? 1 : 0)
    var entry = entries.withLock { $0[id] }
    if let known = entry, known.repository != card.repository { entry = nil }
    if entry == nil {
      let made = try makeEntry(card)
      entries.withLock {
        if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
        $0[id] = made
      }
      entry = made
    }
    guard let entry else { return }
    for (index, slot) in entry.slots.enumerated() {
      buffer.append(contentsOf: entry.pieces[index])
      switch slot {
      case .position: Self.appendDecimal(card.position, to: &buffer)
      case .setsize: Self.appendDecimal(card.setsize, to: &buffer)
      case .percent: Self.appendDecimal(card.barPercent, to: &buffer)
      case .updated: buffer.append(contentsOf: card.updatedText.utf8)
      }
    }
    if let last = entry.pieces.last { buffer.append(contentsOf: last) }
  }

  /// Renders `card` with sentinels in the slots and cuts the output at them.
  private func makeEntry(_ card: CardView) throws(MustacheError) -> Entry {
    func sentinel(_ slot: Slot) -> MustacheValue {
      .html(String(decoding: marker + [slot.rawValue, 1], as: UTF8.self))
    }
    let value = card.mustacheValue(
      position: sentinel(.position), setsize: sentinel(.setsize), percent: sentinel(.percent),
      updated: sentinel(.updated))
    var bytes: [UInt8] = []
    bytes.reserveCapacity(2048)
    try templates.render("partials/card", value, into: &bytes)
    var pieces: [[UInt8]] = []
    var slots: [Slot] = []
    var start = 0
    var index = 0
    let count = bytes.count
    let width = marker.count
    while index + width + 1 < count {
      if bytes[index] == 1, bytes[index..<(index + width)].elementsEqual(marker),
        let slot = Slot(rawValue: bytes[index + width]), bytes[index + width + 1] == 1
      {
        pieces.append(Array(bytes[start..<index]))
        slots.append(slot)
        index += width + 2
        start = index
      } else {
        index += 1
      }
    }
    pieces.append(Array(bytes[start..<count]))
    return Entry(repository: card.repository, pieces: pieces, slots: slots)
  }

  /// Appends a non-negative decimal without an intermediate string.
  static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
    guard value > 0 else {
      if value == 0 {
        buffer.append(UInt8(ascii: "0"))
      } else {
        buffer.append(contentsOf: String(value).utf8)
      }
      return
    }
    var divisor = 1
    while divisor <= value / 10 { divisor *= 10 }
    var rest = value
    while divisor > 0 {
      buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor))
      rest %= divisor
      divisor /= 10
    }
  }
}
