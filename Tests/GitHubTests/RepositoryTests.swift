import Packing
import TestSupport
import Testing

@_spi(PackedFields) @testable import GitHub

@Suite(
  "Repository: every declared field read back from its one record, as strings and in place",
  .timeLimit(.minutes(2)))
struct RepositoryTests {
  /// The flags' slot is a constant (every card's flags read it) and must follow the last `Number`.
  @Test func theFlagsFollowTheNumbers() {
    expectEqual(Repository.flagsSlot, Repository.Number.allCases.count)
    expectEqual(Repository.numberSlots, Repository.Number.allCases.count + 1)
  }

  /// A repository whose every field is given by the dictionaries (absent keys: 0, false, nil).
  static func make(
    numbers: [Repository.Number: Int] = [:], flags: Set<Repository.Flag> = [],
    texts: [Repository.Text: String] = [:],
    topics: [String] = []
  ) -> Repository {
    Repository(
      number: { numbers[$0] ?? 0 }, flag: { flags.contains($0) }, text: { texts[$0] }, topics: topics)
  }

  /// A repository where every field has a value of its own (distinct per case), built from the
  /// declaration: a new case is covered without editing this.
  static func everyField(seed: Int = 0) -> Repository {
    Repository(
      number: { seed * 100 + $0.rawValue * 7 - 3 }, flag: { ($0.rawValue + seed).isMultiple(of: 2) },
      text: { "<\($0)> zoë 🚀 \(seed)" }, topics: ["cli", "日本語", ""])
  }

  static let owner = RepositoryOwner(
    login: "zoë", id: 7, avatarURL: "https://a/u/7", htmlURL: "https://github.com/zo%C3%AB", type: "User")

  @Test func everyDeclaredFieldReadsBackWhatWasGiven() {
    let r = Self.everyField()
    for field in Repository.Number.allCases { expectEqual(r[field], field.rawValue * 7 - 3, "\(field)") }
    for field in Repository.Flag.allCases {
      expectEqual(r[field], field.rawValue.isMultiple(of: 2), "\(field)")
    }
    for field in Repository.Text.allCases {
      expectEqual(r[field], "<\(field)> zoë 🚀 0", "\(field)")
      expectEqual(r.withUTF8(field) { String(copying: $0) }, "<\(field)> zoë 🚀 0", "\(field) in place")
    }
    expectEqual(r.topics, ["cli", "日本語", ""])
    expectEqual(
      (0..<r.topicCount).map { i in r.withTopicUTF8(i) { String(copying: $0) } }, ["cli", "日本語", ""])
  }

  @Test func namedPropertiesReadTheDeclaredFields() {
    let r = Self.make(
      numbers: [.id: 42, .stargazersCount: Int.max, .forksCount: -1, .ownerID: 7], flags: [.fork, .hasOwner],
      texts: [
        .name: "r", .fullName: "zoë/r", .htmlURL: "https://github.com/zoë/r", .description: "<b>emoji 🚀</b>",
        .language: "Swift", .license: "", .createdAt: "2020-01-01T00:00:00Z",
        .updatedAt: "2021-01-01T00:00:00Z",
        .ownerLogin: "zoë", .ownerAvatarURL: "https://a/u/7", .ownerHTMLURL: "https://github.com/zo%C3%AB",
        .ownerType: "User",
      ], topics: ["cli"])
    expectTrue(
      r.id == 42 && r.name == "r" && r.fullName == "zoë/r" && r.htmlURL == "https://github.com/zoë/r")
    expectTrue(r.description == "<b>emoji 🚀</b>" && r.language == "Swift" && r.license == "")
    expectTrue(r.stargazersCount == Int.max && r.forksCount == -1 && r.openIssuesCount == 0)
    expectTrue(r.createdAt == "2020-01-01T00:00:00Z" && r.updatedAt == "2021-01-01T00:00:00Z")
    expectTrue(r.pushedAt == nil && r.homepage == nil)
    expectTrue(r.fork && !r.archived)
    expectEqual(r.owner, Self.owner)
    expectTrue(r.ownerLogin == "zoë" && r.ownerID == 7)
    expectEqual(r.topics, ["cli"])
  }

  /// The plain `init` gives every declared field (compared with the same fields given by case), and
  /// works out `createdSeconds` from `createdAt`.
  @Test func thePlainInitGivesEveryField() {
    let plain = Repository(
      id: 42, name: "r", fullName: "zoë/r", owner: Self.owner, htmlURL: "https://github.com/zoë/r",
      description: "<b>🚀</b>", fork: true, language: "Swift", stargazersCount: 5, forksCount: 6,
      openIssuesCount: 7, topics: ["cli", "日本語"], license: "MIT", createdAt: "2020-01-01T00:00:01Z",
      updatedAt: "2021-01-01T00:00:00Z", pushedAt: "2022-01-01T00:00:00Z", homepage: "https://r.example",
      archived: true, isTemplate: true, isPublic: true)
    let numbers: [Repository.Number: Int] = [
      .id: 42, .stargazersCount: 5, .forksCount: 6, .openIssuesCount: 7, .ownerID: 7,
      .createdSeconds: 1_577_836_801,
    ]
    let texts: [Repository.Text: String] = [
      .name: "r", .fullName: "zoë/r", .htmlURL: "https://github.com/zoë/r", .description: "<b>🚀</b>",
      .language: "Swift", .license: "MIT", .createdAt: "2020-01-01T00:00:01Z",
      .updatedAt: "2021-01-01T00:00:00Z",
      .pushedAt: "2022-01-01T00:00:00Z", .homepage: "https://r.example", .ownerLogin: "zoë",
      .ownerAvatarURL: "https://a/u/7", .ownerHTMLURL: "https://github.com/zo%C3%AB", .ownerType: "User",
    ]
    expectTrue(
      Set(numbers.keys) == Set(Repository.Number.allCases) && Set(texts.keys) == Set(Repository.Text.allCases)
    )
    expectEqual(
      plain,
      Self.make(
        numbers: numbers, flags: Set(Repository.Flag.allCases), texts: texts, topics: ["cli", "日本語"]))
    expectTrue(plain.createdSeconds == 1_577_836_801 && plain.isTemplate && plain.archived && plain.isPublic)
    let bare = Repository(
      id: 1, name: "n", fullName: "o/n", owner: nil, htmlURL: "", createdAt: "not a time", updatedAt: "",
      homepage: "", isPublic: false)
    expectTrue(bare.owner == nil && bare.ownerID == nil && bare.ownerLogin == nil && bare.createdSeconds == 0)
    expectEqual(bare.homepage, nil, "an empty homepage is none")
    expectTrue(
      !bare.isPublic && !bare.isTemplate && !bare.fork && bare.description == nil && bare.topics.isEmpty)
  }

  @Test func absentIsNotEmpty() {
    let r = Self.make(texts: [.description: ""])
    expectEqual(r.description, "")
    expectEqual(r.withUTF8(.description) { $0.count }, 0)
    expectTrue(r.language == nil && r.withUTF8(.language) { _ in true } == nil)
    expectTrue(r.owner == nil && r.ownerLogin == nil && r.ownerID == nil)
    expectTrue(r.topics.isEmpty && r.topicCount == 0)
  }

  /// `RepositoryRows` (the renderer's reader) answers every field of every row as `Repository` does,
  /// absent texts included.
  @Test func rowsReadEveryFieldOfEveryRepositoryAsTheRepositoryDoes() {
    let repositories = (0..<3).map { Self.everyField(seed: $0) } + [Self.make(texts: [.description: ""])]
    let rows = RepositoryRows(repositories)
    expectEqual(rows.count, repositories.count)
    for (row, r) in repositories.enumerated() {
      for field in Repository.Number.allCases { expectEqual(rows[row, field], r[field], "\(row) \(field)") }
      for field in Repository.Flag.allCases { expectEqual(rows[row, field], r[field], "\(row) \(field)") }
      for field in Repository.Text.allCases {
        expectEqual(rows[row, field], r[field], "\(row) \(field)")
        expectEqual(rows.withUTF8(row, field) { String(copying: $0) }, r[field], "\(row) \(field) in place")
      }
      expectEqual(rows.topicCount(row), r.topicCount)
      expectEqual(
        (0..<rows.topicCount(row)).map { i in rows.withTopicUTF8(row, i) { String(copying: $0) } }, r.topics)
      rows.withRow(row) { repository in
        for field in Repository.Number.allCases {
          expectEqual(repository[field], r[field], "\(row) \(field) by row")
        }
        for field in Repository.Flag.allCases {
          expectEqual(repository[field], r[field], "\(row) \(field) by row")
        }
        for field in Repository.Text.allCases {
          expectEqual(repository.withUTF8(field) { String(copying: $0) }, r[field], "\(row) \(field) by row")
        }
        expectEqual(
          (0..<repository.topicCount).map { i in repository.withTopicUTF8(i) { String(copying: $0) } },
          r.topics)
      }
    }
  }

  @Test func equalityAndHashingFollowTheFields() {
    expectEqual(Self.everyField(), Self.everyField())
    expectEqual(Set([Self.everyField(), Self.everyField()]).count, 1)
    expectTrue(Self.everyField() != Self.everyField(seed: 1))
    expectTrue(Self.make(texts: [.description: ""]) != Self.make(), "nil and empty differ")
    expectTrue(Self.make(topics: ["ab"]) != Self.make(topics: ["a", "b"]), "topic boundaries count")
    expectTrue(Self.make(flags: [.fork]) != Self.make())
  }

  @Test func aRecordOfAnotherShapeIsNotARepository() {
    expectEqual(Repository(record: Self.everyField().record), Self.everyField())
    let short = PackedRecord(numbers: [1, 2], texts: [nil], list: [])
    expectEqual(Repository(record: short), nil)
  }
}

extension String {
  /// The text of UTF-8 read in place.
  init(copying utf8: Span<UInt8>) {
    var bytes: [UInt8] = []
    for i in utf8.indices { bytes.append(utf8[i]) }
    self.init(decoding: bytes, as: UTF8.self)
  }
}
