/// An immutable record of integers, optional texts and a list of texts, packed into one block of
/// memory that every copy shares: a copy is one reference count, not one per string, and a text is
/// read in place as UTF-8 (`withUTF8`) with no `String` made and nothing reference-counted. The
/// domain gives the slots names (`Repository` numbers them with its field enums); this type only
/// knows slots by number, and the cache codec (`PayloadCodec`) stores every slot it has.
///
/// ```swift
/// let record = PackedRecord(numbers: [42, 7], texts: ["apple/swift", nil], list: ["cli"])
/// record.number(0)  // 42
/// record.withUTF8(0) { span in span.count }  // 11; nil for texts[1]
/// record.listString(0)  // "cli"
/// ```
public struct PackedRecord: Sendable, Hashable {
  @usableFromInline let storage: Storage

  /// A record of `numbers`, `texts` (nil is absent, which differs from empty) and `list`. At most
  /// `maxTexts` texts.
  public init(numbers: [Int], texts: [String?], list: [String]) {
    precondition(texts.count <= Self.maxTexts, "a record holds at most \(Self.maxTexts) texts")
    storage = Storage(numbers: numbers, texts: texts, list: list)
  }

  /// Most texts one record holds (one presence bit each in a word).
  public static let maxTexts = 64

  /// How many numbers the record holds.
  @inlinable public var numberCount: Int { storage.word(Layout.numberCount) }
  /// How many texts the record holds (present or not).
  @inlinable public var textCount: Int { storage.word(Layout.textCount) }
  /// How many list elements the record holds.
  @inlinable public var listCount: Int { storage.word(Layout.listCount) }

  /// The bytes the record's block occupies (for cache accounting).
  @inlinable public var byteCount: Int { storage.word(Layout.length) }

  /// Number `index` (`0..<numberCount`).
  @inlinable public func number(_ index: Int) -> Int { storage.block.number(index) }

  /// Whether text `index` is present (`0..<textCount`).
  @inlinable public func hasText(_ index: Int) -> Bool { storage.block.hasText(index) }

  /// Text `index` as a `String`, nil when absent.
  public func string(_ index: Int) -> String? {
    withUTF8(index) { span in span.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
  }

  /// `body` with the UTF-8 of text `index`, read in place; nil (and `body` not called) when absent.
  @inlinable public func withUTF8<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result? {
    storage.block.withText(index, body)
  }

  /// List element `index` (`0..<listCount`) as a `String`.
  public func listString(_ index: Int) -> String {
    withListUTF8(index) { span in span.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
  }

  /// `body` with the UTF-8 of list element `index`, read in place.
  @inlinable public func withListUTF8<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result {
    storage.block.withListElement(index, body)
  }

  /// Records are equal when their blocks hold the same bytes (numbers, presence, texts, list).
  public static func == (a: PackedRecord, b: PackedRecord) -> Bool {
    a.storage === b.storage || a.storage.bytes.elementsEqual(b.storage.bytes)
  }

  /// Hashes the block's bytes, as `==` compares them.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(bytes: storage.bytes)
  }
}

/// The block's layout, in 8-byte words: the header (below), the numbers, then one offset per text
/// and list element (its start) and the end of the last; then the UTF-8 bytes.
@usableFromInline enum Layout {
  @usableFromInline static let numberCount = 0
  @usableFromInline static let textCount = 1
  @usableFromInline static let listCount = 2
  /// The block's length in bytes.
  @usableFromInline static let length = 3
  /// Bit `i` is set when text `i` is present.
  @usableFromInline static let present = 4
  @usableFromInline static let header = 5
}

extension PackedRecord {
  /// The block a record and its copies share: written once in `init`, freed in `deinit`.
  // @unchecked Sendable: the block is only written in `init`, before the object is shared; afterwards
  // every thread only reads it, and it is freed when no copy can read it any more.
  @usableFromInline final class Storage: @unchecked Sendable {
    /// The block (see `Layout`), 8-byte aligned.
    @usableFromInline let base: UnsafeMutableRawPointer

    init(numbers: [Int], texts: [String?], list: [String]) {
      let slices = texts.count + list.count
      let offsetsWord = Layout.header + numbers.count
      let textStart = (offsetsWord + slices + 1) * 8
      var length = textStart
      for text in texts { length += text?.utf8.count ?? 0 }
      for element in list { length += element.utf8.count }
      base = .allocate(byteCount: length, alignment: 8)
      let base = base
      func store(_ value: Int, word: Int) { base.storeBytes(of: value, toByteOffset: word * 8, as: Int.self) }
      store(numbers.count, word: Layout.numberCount)
      store(texts.count, word: Layout.textCount)
      store(list.count, word: Layout.listCount)
      store(length, word: Layout.length)
      for (i, number) in numbers.enumerated() { store(number, word: Layout.header + i) }
      // Each text is copied at `offset`, and its start recorded; the lengths were summed above, so
      // every copy stays inside the block.
      var offset = textStart
      func write(_ text: String, slice: Int) {
        store(offset, word: offsetsWord + slice)
        var text = text
        text.withUTF8 { utf8 in
          if let source = utf8.baseAddress { (base + offset).copyMemory(from: source, byteCount: utf8.count) }
          offset += utf8.count
        }
      }
      var present = 0
      for (i, text) in texts.enumerated() {
        if text != nil { present |= 1 << i }
        write(text ?? "", slice: i)
      }
      for (i, element) in list.enumerated() { write(element, slice: texts.count + i) }
      store(offset, word: offsetsWord + slices)
      store(present, word: Layout.present)
    }

    deinit { base.deallocate() }

    /// The block's reader (see `Block`).
    @inlinable var block: Block { Block(base: UnsafeRawPointer(base)) }

    /// Word `index` of the block; callers pass indices inside the header, numbers or offsets.
    @inlinable @inline(__always) func word(_ index: Int) -> Int { block.word(index) }

    /// `body` with slice `n` (texts first, then list elements); `n` was checked by the caller.
    @inlinable @inline(__always) func withSlice<Result>(_ n: Int, _ body: (Span<UInt8>) -> Result) -> Result {
      block.withSlice(n, body)
    }

    /// The whole block, for equality and hashing.
    var bytes: UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(start: base, count: word(Layout.length))
    }
  }
}

/// Reads a block in place (see `Layout`). It holds the block's address, not the block: whoever makes
/// one keeps the `Storage` alive for as long as it is used (`Storage.block`, `PackedRecords`).
// @unchecked Sendable: the address is of a block that is only read once it is shared.
@usableFromInline struct Block: @unchecked Sendable {
  @usableFromInline let base: UnsafeRawPointer

  @inlinable init(base: UnsafeRawPointer) { self.base = base }

  /// Word `index` of the block; callers pass indices inside the header, numbers or offsets.
  @inlinable @inline(__always) func word(_ index: Int) -> Int {
    base.load(fromByteOffset: index * 8, as: Int.self)
  }

  /// `body` with slice `n` (texts first, then list elements); `n` was checked by the caller.
  @inlinable @inline(__always) func withSlice<Result>(_ n: Int, _ body: (Span<UInt8>) -> Result) -> Result {
    let offsets = Layout.header + word(Layout.numberCount)
    let start = word(offsets + n)
    let end = word(offsets + n + 1)
    // The offsets were written in `Storage.init` and lie inside the block, which the block's owner
    // keeps alive through this call.
    let slice = UnsafeBufferPointer(
      start: (base + start).assumingMemoryBound(to: UInt8.self), count: end - start)
    return body(slice.span)
  }

  /// Number `index`, checked against the block's count.
  @inlinable func number(_ index: Int) -> Int {
    precondition(index >= 0 && index < word(Layout.numberCount), "no such number")
    return word(Layout.header + index)
  }

  /// Whether text `index` is present, checked against the block's count.
  @inlinable func hasText(_ index: Int) -> Bool {
    precondition(index >= 0 && index < word(Layout.textCount), "no such text")
    return word(Layout.present) & (1 << index) != 0
  }

  /// `body` with text `index`; nil (and `body` not called) when absent.
  @inlinable func withText<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result? {
    hasText(index) ? withSlice(index, body) : nil
  }

  /// `body` with list element `index`, checked against the block's count.
  @inlinable func withListElement<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result {
    precondition(index >= 0 && index < word(Layout.listCount), "no such list element")
    return withSlice(word(Layout.textCount) + index, body)
  }
}
