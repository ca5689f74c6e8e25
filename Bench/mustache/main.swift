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

/// Rows whose values are stored by field number (`MustacheRows`): a section over a list field renders
/// once per element, over any other field once when the value is truthy; a text or a number is
/// written as it is, a list's element likewise, anything else writes nothing.
final class ValueRows: MustacheRows {
  let schema: MustacheSchema
  /// Each row's values by field number.
  let fields: [[MustacheValue]]

  /// `rows` by name, stored by the schema's numbering (`names`); a missing name is null.
  init(_ name: String, names: [String], rows: [[String: MustacheValue]]) {
    schema = MustacheSchema(name, names: names)
    fields = rows.map { row in names.map { row[$0] ?? .null } }
  }

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

/// The same cards as rows that the card template is bound to when the library loads: fields by
/// number, written in place.
let repositoryRows = ValueRows(
  "repository",
  names: [
    "id", "owner.id", "url", "owner.login", "name", "archived", "description", "language", "stars",
    "hasTopics", "topics",
  ],
  rows: (0..<20).map { i in
    guard case .object(var fields) = repository(i), case .object(let owner)? = fields["owner"] else {
      fatalError("the bench's own data")
    }
    fields["owner.login"] = owner["login"]
    fields["owner.id"] = owner["id"]
    return fields
  })

let rows: MustacheValue = ["repos": .rows(repositoryRows)]

/// The product's own card (`Templates/partials/card.mustache`, whitespace trimmed as the app loads it)
/// over rows with the names it reads (the app's `CardField`), each a stored value written in place,
/// so that the figure is mostly the renderer's walk, not the rows' formatting.
let appCardRows = ValueRows(
  "card",
  names: [
    "id", "position", "setsize", "prefetch", "fullName", "htmlURL", "description", "language",
    "languageClass", "starsText", "stars", "forksLabel", "issuesLabel", "license", "archived", "fork",
    "template", "topics", "updatedISO", "updatedText", "bar.percent", "bar.band", "owner.login",
    "owner.page", "owner.initials", "owner.avatar", "owner.avatar2x", "stargazers", "private",
  ],
  rows: (0..<20).map { i in
    let login = "owner-\(i)"
    let name = "repository-\(i)"
    let language = ["C#", "Swift", "Python", "Rust", nil][i % 5]
    let text = { (value: String?) in value.map(MustacheValue.string) ?? .null }
    return [
      "id": .int(8_101_320 + i * 7919), "position": .int(21 + i), "setsize": .int(1000),
      "prefetch": .string(i == 14 ? "true" : "false"), "fullName": .string("\(login)/\(name)"),
      "htmlURL": .string("https://github.com/\(login)/\(name)"),
      "description": text(
        i % 6 == 5 ? nil : "A safe HTTP client for static sites written in C#, number \(i)."),
      "language": text(language), "languageClass": text(language.map { "lang-\($0.lowercased())" }),
      "starsText": .string("\(36 - i).\(i % 10)k"), "stars": .int(36_588 - i * 997),
      "forksLabel": .string("\(i).2k forks"), "issuesLabel": .string("\(250 + i) issues"),
      "license": text(i % 2 == 0 ? "Apache-2.0" : nil), "archived": .bool(i % 9 == 0),
      "fork": .bool(i % 11 == 0),
      "topics": .list(i % 4 == 0 ? ["http", "client", "static-site"].map(MustacheValue.string) : []),
      "updatedISO": .string("2024-0\(1 + i % 9)-01T00:00:00Z"), "updatedText": .string("\(i + 2) years ago"),
      "bar.percent": .int(100 - i * 4), "bar.band": .int(1 + i % 5), "owner.login": .string(login),
      "owner.page": .string("/owners/\(login)"), "owner.initials": .string("O\(i % 10)"),
      "owner.avatar": .string("/avatars/\(36_554_090 + i)?s=80"),
      "owner.avatar2x": .string("/avatars/\(36_554_090 + i)?s=160"),
      "stargazers": .string("/fragments/stars/\(login)/\(name)"), "private": .bool(false),
    ]
  })

let appCards: MustacheValue = ["cards": .rows(appCardRows)]

/// The same cards with every field written ahead into bytes that live as long as the bench: the rows
/// copy them out (escaped as the tag says) and do nothing else, so the figure is mostly the renderer's.
// @unchecked Sendable: the buffers are written in `init`, only read afterwards, and never freed.
final class PreparedCardRows: MustacheRows, @unchecked Sendable {
  static let width = appCardRows.schema.names.count
  /// The list field (`topics`), written per element.
  static let topicsField = appCardRows.schema.names.firstIndex(of: "topics") ?? -1
  /// Field `f` of row `r` at `r * width + f`; the row's topic `element` at `topicStarts[r] + element`.
  let fields: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
  let counts: UnsafeBufferPointer<Int>
  let topics: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
  let topicStarts: UnsafeBufferPointer<Int>
  let rows: Int

  init(_ source: ValueRows) {
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
        if field != Self.topicsField { source.write(field, row: row, element: 0, to: &output) }
        fields.append(bytes(String(decoding: output.bytes, as: UTF8.self)))
        counts.append(source.count(of: field, row: row))
      }
      topicStarts.append(topics.count)
      for element in 0..<source.count(of: Self.topicsField, row: row) {
        var output = MustacheOutput(capacity: 64)
        output.escapes = false
        source.write(Self.topicsField, row: row, element: element, to: &output)
        topics.append(bytes(String(decoding: output.bytes, as: UTF8.self)))
      }
    }
    self.fields = stored(fields)
    self.counts = stored(counts)
    self.topics = stored(topics)
    self.topicStarts = stored(topicStarts)
    rows = source.count
  }

  var schema: MustacheSchema { appCardRows.schema }
  var count: Int { rows }

  func count(of field: Int, row: Int) -> Int { counts[row * Self.width + field] }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    output.append(
      utf8: field == Self.topicsField ? topics[topicStarts[row] + element] : fields[row * Self.width + field])
  }
}

let preparedCards: MustacheValue = ["cards": .rows(PreparedCardRows(appCardRows))]

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
    templates: ["card": card, "page": page], bindings: ["card": repositoryRows.schema])
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
    ], bindings: ["partials/card": appCardRows.schema], trimWhitespace: true)
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
