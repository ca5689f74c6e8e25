// Compiled together with Sources/Mustache by script/bench-mustache (same module, -O -wmo).
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let card = """
  <article class="card" id="repo-{{id}}">
    <img class="avatar" src="/avatars/{{owner.id}}?s=40" alt="" width="40" height="40" loading="lazy">
    <h2><a href="{{url}}">{{owner.login}}/{{name}}</a>{{#archived}} <span class="tag">archived</span>{{/archived}}</h2>
    {{#description}}<p class="desc">{{description}}</p>{{/description}}{{^description}}<p class="desc none">No description</p>{{/description}}
    <ul class="meta">{{#language}}<li class="lang">{{language}}</li>{{/language}}<li class="stars">★ {{stars}}</li></ul>
    {{#hasTopics}}<ul class="topics">{{#topics}}<li>{{.}}</li>{{/topics}}</ul>{{/hasTopics}}
  </article>

  """
let page = "{{#repos}}{{>card}}{{/repos}}"

func repository(_ i: Int) -> MustacheValue {
  [
    "id": .int(100_000 + i),
    "name": .string("repo-\(i) <beta>"),
    "url": .string("https://github.com/owner\(i)/repo-\(i)?tab=\"readme\"&x='1'"),
    "owner": ["login": .string("owner-\(i) & co"), "id": .int(5000 + i)],
    "description": i % 5 == 4
      ? .null
      : .string("A <fast> & \"friendly\" library for 'things' number \(i), with more words to fill a line."),
    "language": i % 3 == 0 ? .null : "Swift",
    "stars": .int(1234 * i + 7),
    "archived": .bool(i % 7 == 0),
    "hasTopics": .bool(i % 4 != 3),
    "topics": .list(["server", "html & css", "<templates>", "topic-\(i)"].map { .string($0) }),
  ]
}

let data: MustacheValue = ["repos": .list((0..<20).map(repository))]

/// The same card as a view model answering lookups itself (`MustacheValue.dynamic`): the values are
/// made per lookup, as an app's view models do, instead of being stored in a dictionary.
final class RepositoryObject: MustacheObject {
  let fields: [String: MustacheValue]
  let owner: OwnerObject

  init(_ i: Int) {
    guard case .object(let fields) = repository(i), case .object(let owner)? = fields["owner"] else {
      fatalError("the bench's own data")
    }
    self.fields = fields
    self.owner = OwnerObject(login: owner["login"] ?? .null, id: 5000 + i)
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "owner": return .dynamic(owner)
    default: return fields[key]
    }
  }
}

/// A card's owner.
final class OwnerObject: MustacheObject {
  let login: MustacheValue
  let id: Int

  init(login: MustacheValue, id: Int) {
    self.login = login
    self.id = id
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "login": return login
    case "id": return .int(id)
    default: return nil
    }
  }
}

let objects: MustacheValue = ["repos": .list((0..<20).map { .dynamic(RepositoryObject($0)) })]

/// The same cards as rows that the card template is bound to when the library loads
/// (`MustacheRows`): fields by number, written in place.
final class RepositoryRows: MustacheRows {
  static let names = [
    "id", "owner.id", "url", "owner.login", "name", "archived", "description", "language", "stars",
    "hasTopics",
    "topics",
  ]
  static let cardSchema = MustacheSchema("repository", names: names)
  /// Each row's values by field number.
  let fields: [[MustacheValue]]

  init() {
    fields = (0..<20).map { i in
      guard case .object(var fields) = repository(i), case .object(let owner)? = fields["owner"] else {
        fatalError("the bench's own data")
      }
      fields["owner.login"] = owner["login"]
      fields["owner.id"] = owner["id"]
      return Self.names.map { fields[$0] ?? .null }
    }
  }

  var schema: MustacheSchema { Self.cardSchema }
  var count: Int { fields.count }

  func count(of field: Int, row: Int) -> Int {
    switch fields[row][field] {
    case .list(let items): return items.count
    case let value: return value.isTruthy ? 1 : 0
    }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    switch fields[row][field] {
    case .string(let text): output.append(text)
    case .int(let number): output.append(number)
    case .list(let items): if case .string(let text) = items[element] { output.append(text) }
    default: break
    }
  }
}

let rows: MustacheValue = ["repos": .rows(RepositoryRows())]

/// The product's own card (`Templates/partials/card.mustache`, whitespace trimmed as the app loads it)
/// over rows shaped like the app's: each field a stored value written in place, so that the figure is
/// mostly the renderer's walk, not the rows' formatting.
final class AppCardRows: MustacheRows {
  static let names = [
    "id", "position", "setsize", "prefetch", "name", "fullName", "htmlURL", "description", "language",
    "starsText", "stars", "forksText", "issuesText", "license", "archived", "fork", "topics", "updatedISO",
    "updatedText", "bar.percent", "bar.band", "owner.login", "owner.page", "owner.initials", "owner.avatar",
    "owner.avatar2x", "stargazers", "forksLabel", "issuesLabel", "languageClass",
  ]
  static let cardSchema = MustacheSchema("card", names: names)

  struct Card {
    var id: Int
    var position: Int
    var name: String
    var fullName: String
    var htmlURL: String
    var description: String?
    var language: String?
    var starsText: String
    var stars: Int
    var license: String?
    var archived: Bool
    var fork: Bool
    var topics: [String]
    var updatedText: String
    var barPercent: Int
    var barBand: Int
    var login: String
    var page: String
    var initials: String
    var ownerID: Int
    var forksLabel: String
    var issuesLabel: String
    var languageClass: String?
    var stargazers: String
  }

  let cards: [Card]
  let trigger = 14

  init() {
    let languages = ["C#", "Swift", "Python", "Rust", nil]
    cards = (0..<20).map { i in
      let login = "owner-\(i)"
      let name = "repository-\(i)"
      let language = languages[i % 5]
      return Card(
        id: 8_101_320 + i * 7919, position: 21 + i, name: name, fullName: "\(login)/\(name)",
        htmlURL: "https://github.com/\(login)/\(name)",
        description: i % 6 == 5 ? nil : "A safe HTTP client for static sites written in C#, number \(i).",
        language: language, starsText: "\(36 - i).\(i % 10)k", stars: 36_588 - i * 997,
        license: i % 2 == 0 ? "Apache-2.0" : nil, archived: i % 9 == 0, fork: i % 11 == 0,
        topics: i % 4 == 0 ? ["http", "client", "static-site"] : [], updatedText: "\(i + 2) years ago",
        barPercent: 100 - i * 4, barBand: 1 + i % 5, login: login, page: "/owners/\(login)",
        initials: "O\(i % 10)", ownerID: 36_554_090 + i, forksLabel: "\(i).2k forks",
        issuesLabel: "\(250 + i) issues", languageClass: language.map { "lang-\($0.lowercased())" },
        stargazers: "/fragments/stars/\(login)/\(name)")
    }
  }

  var schema: MustacheSchema { Self.cardSchema }
  var count: Int { cards.count }

  func count(of field: Int, row: Int) -> Int {
    cards.withUnsafeBufferPointer { cards in
      let card = cards.baseAddress.unsafelyUnwrapped + row
      switch field {
      case 3: return row == trigger ? 1 : 0
      case 7: return card.pointee.description == nil ? 0 : 1
      case 8, 29: return card.pointee.language == nil ? 0 : 1
      case 13: return card.pointee.license == nil ? 0 : 1
      case 14: return card.pointee.archived ? 1 : 0
      case 15: return card.pointee.fork ? 1 : 0
      case 16: return card.pointee.topics.count
      default: return 1
      }
    }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    cards.withUnsafeBufferPointer { cards in
      let card = cards.baseAddress.unsafelyUnwrapped + row
      switch field {
      case 0: output.append(card.pointee.id)
      case 1: output.append(card.pointee.position)
      case 2: output.append(1000)
      case 4: output.append(card.pointee.name)
      case 5: output.append(card.pointee.fullName)
      case 6: output.append(card.pointee.htmlURL)
      case 7: if let text = card.pointee.description { output.append(text) }
      case 8: if let text = card.pointee.language { output.append(text) }
      case 9: output.append(card.pointee.starsText)
      case 10: output.append(card.pointee.stars)
      case 13: if let text = card.pointee.license { output.append(text) }
      case 16: output.append(card.pointee.topics[element])
      case 18: output.append(card.pointee.updatedText)
      case 19: output.append(card.pointee.barPercent)
      case 20: output.append(card.pointee.barBand)
      case 21: output.append(card.pointee.login)
      case 22: output.append(card.pointee.page)
      case 23: output.append(card.pointee.initials)
      case 24, 25:
        output.append(literal: "/avatars/")
        output.append(card.pointee.ownerID)
        output.append(literal: field == 24 ? "?s=80" : "?s=160")
      case 26: output.append(card.pointee.stargazers)
      case 27: output.append(card.pointee.forksLabel)
      case 28: output.append(card.pointee.issuesLabel)
      case 29: if let text = card.pointee.languageClass { output.append(text) }
      default: break
      }
    }
  }
}

let appCards: MustacheValue = ["cards": .rows(AppCardRows())]

/// The same cards with every field written ahead into bytes that live as long as the bench: the rows
/// copy them out (escaped as the tag says) and do nothing else, so the figure is mostly the renderer's.
// @unchecked Sendable: the buffers are written in `init`, only read afterwards, and never freed.
final class PreparedCardRows: MustacheRows, @unchecked Sendable {
  static let width = AppCardRows.names.count
  /// Field `f` of row `r` at `r * width + f`; the row's topic `element` at `topicStarts[r] + element`.
  let fields: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
  let counts: UnsafeBufferPointer<Int>
  let topics: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
  let topicStarts: UnsafeBufferPointer<Int>
  let rows: Int

  init(_ source: AppCardRows) {
    func bytes(_ text: String) -> UnsafeBufferPointer<UInt8> {
      let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, text.utf8.count))
      _ = buffer.initialize(from: text.utf8)
      return UnsafeBufferPointer(rebasing: buffer[0..<text.utf8.count])
    }
    func stored<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
      let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
      _ = buffer.initialize(from: array)
      return UnsafeBufferPointer(rebasing: buffer[0..<array.count])
    }
    var fields: [UnsafeBufferPointer<UInt8>] = []
    var counts: [Int] = []
    var topics: [UnsafeBufferPointer<UInt8>] = []
    var topicStarts: [Int] = []
    for row in 0..<source.count {
      for field in 0..<Self.width {
        var output = MustacheOutput(capacity: 256)
        output.escapes = false
        if field != 16 { source.write(field, row: row, element: 0, to: &output) }
        fields.append(bytes(String(decoding: output.bytes, as: UTF8.self)))
        counts.append(source.count(of: field, row: row))
      }
      topicStarts.append(topics.count)
      topics += source.cards[row].topics.map(bytes)
    }
    self.fields = stored(fields)
    self.counts = stored(counts)
    self.topics = stored(topics)
    self.topicStarts = stored(topicStarts)
    rows = source.count
  }

  var schema: MustacheSchema { AppCardRows.cardSchema }
  var count: Int { rows }

  func count(of field: Int, row: Int) -> Int { counts[row * Self.width + field] }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    output.append(utf8: field == 16 ? topics[topicStarts[row] + element] : fields[row * Self.width + field])
  }
}

let preparedCards: MustacheValue = ["cards": .rows(PreparedCardRows(AppCardRows()))]

/// CPU time of this thread: steadier than wall time on a machine shared with other work.
func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Median CPU seconds per render of `value` (9 runs of 5,000 renders).
func measure(_ library: TemplateLibrary, _ value: MustacheValue, into buffer: inout [UInt8]) throws
  -> [Double]
{
  let iterations = 5_000
  var samples: [Double] = []
  for _ in 0..<9 {
    let start = now()
    for _ in 0..<iterations {
      buffer.removeAll(keepingCapacity: true)
      try library.render("page", value, into: &buffer)
    }
    samples.append((now() - start) / Double(iterations))
  }
  return samples.sorted()
}

func microseconds(_ seconds: Double) -> String {
  let tenths = Int((seconds * 1e7).rounded())
  return "\(tenths / 10).\(tenths % 10)"
}

do {
  let library = try TemplateLibrary(templates: ["card": card, "page": page])
  let bound = try TemplateLibrary(
    templates: ["card": card, "page": page], bindings: ["card": RepositoryRows.cardSchema])
  var buffer: [UInt8] = []
  try library.render("page", objects, into: &buffer)
  let fromObjects = buffer
  buffer.removeAll()
  try library.render("page", data, into: &buffer)
  guard fromObjects == buffer else { fatalError("objects and dictionaries render differently") }
  var fromRows: [UInt8] = []
  try bound.render("page", rows, into: &fromRows)
  guard fromRows == buffer else { fatalError("rows and dictionaries render differently") }
  let bytesPerRender = buffer.count
  print("mustache bench: 20 cards, \(bytesPerRender) bytes per render (\(bytesPerRender / 20) per card)")
  let app = try TemplateLibrary(
    templates: [
      "partials/card": try TemplateFiles.read("Templates/partials/card.mustache"),
      "page": "{{#cards}}\n{{> partials/card}}\n{{/cards}}\n",
    ], bindings: ["partials/card": AppCardRows.cardSchema], trimWhitespace: true)
  var fromApp: [UInt8] = []
  try app.render("page", appCards, into: &fromApp)
  var fromPrepared: [UInt8] = []
  try app.render("page", preparedCards, into: &fromPrepared)
  guard fromPrepared == fromApp else { fatalError("prepared and app rows render differently") }
  print("app card bench: 20 cards, \(fromApp.count) bytes per render (\(fromApp.count / 20) per card)")
  let cases: [(String, MustacheValue, TemplateLibrary)] = [
    ("dictionaries", data, library), ("objects", objects, library), ("rows, bound at load", rows, bound),
    ("app cards, rows", appCards, app), ("app cards, prepared rows", preparedCards, app),
  ]
  // `--app`: only the app's card (for profiling the bound path alone).
  for (label, value, templates) in CommandLine.arguments.contains("--app") ? Array(cases[3...]) : cases {
    let samples = try measure(templates, value, into: &buffer)
    let median = samples[samples.count / 2]
    print("\(label): runs (CPU µs/render):", samples.map(microseconds).joined(separator: " "))
    print(
      "\(label): median \(microseconds(median)) µs CPU per render, \(Int((1 / median).rounded())) renders/s per core"
    )
  }
  if CommandLine.arguments.contains("--print") {
    print(String(decoding: buffer, as: UTF8.self))
    print(String(decoding: fromApp, as: UTF8.self))
  }
} catch {
  print("bench failed: \(error)")
  exit(1)
}
