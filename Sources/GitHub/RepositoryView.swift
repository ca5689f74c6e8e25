/// A repository's fields read in place from its block (`Repository.view`): numbers, and text as
/// UTF-8 bytes, with no `String` made and no reference counted. A plain pointer: valid only while
/// the repository it came from, or a copy of it, is alive.
///
/// ```swift
/// let view = repository.view
/// if let description = view.utf8(.description) { output.append(utf8: description) }
/// for i in 0..<view.topicCount { print(String(decoding: view.topic(i), as: UTF8.self)) }
/// ```
public struct RepositoryView {
  /// The text fields, in the order of the block's offsets.
  public enum Text: Int, CaseIterable, Sendable {
    case name, fullName, htmlURL, description, language, license, createdAt, updatedAt, pushedAt, homepage
    case ownerLogin, ownerAvatarURL, ownerHTMLURL, ownerType
  }

  // The block's layout, in 8-byte words: the numbers (id, stars, forks, open issues, owner id),
  // the flags, the topic count and the block's length; then offsets, a word each (each text's start, each
  // topic's start, and the end of the last); then the UTF-8 bytes.
  @usableFromInline static let idWord = 0
  @usableFromInline static let numberWords = 5
  @usableFromInline static let flagsWord = 5
  @usableFromInline static let topicsWord = 6
  @usableFromInline static let lengthWord = 7
  @usableFromInline static let headerWords = 8

  @usableFromInline static let forkFlag = 1
  @usableFromInline static let archivedFlag = 2
  @usableFromInline static let ownerFlag = 4
  /// Bit `presentShift + text.rawValue` is set when that text is present (an optional may be nil).
  @usableFromInline static let presentShift = 8

  @usableFromInline let base: UnsafeRawPointer

  @inlinable init(_ base: UnsafeRawPointer) { self.base = base }

  @inlinable func word(_ index: Int) -> Int { base.load(fromByteOffset: index * 8, as: Int.self) }

  /// GitHub's numeric id.
  @inlinable public var id: Int { word(Self.idWord) }
  /// Stargazer count at search time.
  @inlinable public var stargazersCount: Int { word(1) }
  /// Fork count.
  @inlinable public var forksCount: Int { word(2) }
  /// Open issues and pull requests.
  @inlinable public var openIssuesCount: Int { word(3) }
  /// The owner's numeric id (0 without an owner).
  @inlinable public var ownerID: Int { word(4) }
  /// Whether this is a fork.
  @inlinable public var fork: Bool { word(Self.flagsWord) & Self.forkFlag != 0 }
  /// Whether the repository is archived.
  @inlinable public var archived: Bool { word(Self.flagsWord) & Self.archivedFlag != 0 }
  /// Whether GitHub sent an owner.
  @inlinable public var hasOwner: Bool { word(Self.flagsWord) & Self.ownerFlag != 0 }
  /// How many topics there are.
  @inlinable public var topicCount: Int { word(Self.topicsWord) }

  /// The UTF-8 of `text`, or nil when it is absent (a nil optional, or an owner field without an owner).
  @inlinable public func utf8(_ text: Text) -> UnsafeBufferPointer<UInt8>? {
    guard word(Self.flagsWord) & (1 << (Self.presentShift + text.rawValue)) != 0 else { return nil }
    return slice(text.rawValue)
  }

  /// The UTF-8 of topic `index` (`0..<topicCount`).
  @inlinable public func topic(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    slice(Text.allCases.count + index)
  }

  /// Text number `n` of the block (texts first, then topics).
  @inlinable func slice(_ n: Int) -> UnsafeBufferPointer<UInt8> {
    let start = word(Self.headerWords + n)
    let end = word(Self.headerWords + n + 1)
    return UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: end - start)
  }
}

/// The block a `Repository` and its copies share: written once in `init`, freed in `deinit`.
// @unchecked Sendable: the block is only written in `init`, before the object is shared; afterwards
// every thread only reads it, and it is freed when no copy can read it any more.
@usableFromInline final class RepositoryStorage: @unchecked Sendable {
  /// The block (see `RepositoryView` for its layout), 8-byte aligned.
  @usableFromInline let base: UnsafeMutableRawPointer

  /// `numbers`: id, stars, forks, open issues, owner id; `texts[field.rawValue]`, nil when absent.
  init(numbers: [Int], flags: Int, texts: [String?], topics: [String]) {
    typealias V = RepositoryView
    let count = V.Text.allCases.count + topics.count
    let textStart = (V.headerWords + count + 1) * 8
    var length = textStart
    for text in texts { length += text?.utf8.count ?? 0 }
    for topic in topics { length += topic.utf8.count }
    base = .allocate(byteCount: length, alignment: 8)
    var present = flags
    for (i, number) in numbers.enumerated() { base.storeBytes(of: number, toByteOffset: i * 8, as: Int.self) }
    base.storeBytes(of: topics.count, toByteOffset: V.topicsWord * 8, as: Int.self)
    base.storeBytes(of: length, toByteOffset: V.lengthWord * 8, as: Int.self)
    // Each text is copied at `offset`, and its start recorded; the lengths were summed above.
    var offset = textStart
    func write(_ text: String, at n: Int) {
      base.storeBytes(of: offset, toByteOffset: (V.headerWords + n) * 8, as: Int.self)
      var text = text
      text.withUTF8 { utf8 in
        if let source = utf8.baseAddress { (base + offset).copyMemory(from: source, byteCount: utf8.count) }
        offset += utf8.count
      }
    }
    for (n, text) in texts.enumerated() {
      if text != nil { present |= 1 << (V.presentShift + n) }
      write(text ?? "", at: n)
    }
    for (i, topic) in topics.enumerated() { write(topic, at: V.Text.allCases.count + i) }
    base.storeBytes(of: offset, toByteOffset: (V.headerWords + count) * 8, as: Int.self)
    base.storeBytes(of: present, toByteOffset: V.flagsWord * 8, as: Int.self)
  }

  deinit { base.deallocate() }

  /// The whole block, for equality and hashing.
  var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(
      start: base, count: base.load(fromByteOffset: RepositoryView.lengthWord * 8, as: Int.self))
  }
}
