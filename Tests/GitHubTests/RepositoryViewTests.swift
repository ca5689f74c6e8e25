import Testing

@testable import GitHub

@Suite(
  "Repository: every field read back from its one block, as strings and in place", .timeLimit(.minutes(3))
)
struct RepositoryViewTests {
  static func make(
    description: String? = "<b>emoji 🚀</b>", language: String? = "Swift", owner: RepositoryOwner? = owner,
    topics: [String] = ["cli", "日本語", ""], homepage: String? = nil, fork: Bool = true, archived: Bool = false
  ) -> Repository {
    Repository(
      id: 42, name: "r", fullName: "zoë/r", owner: owner, htmlURL: "https://github.com/zoë/r",
      description: description, fork: fork, language: language, stargazersCount: Int.max, forksCount: -1,
      openIssuesCount: 0, topics: topics, license: "", createdAt: "2020-01-01T00:00:00Z",
      updatedAt: "2021-01-01T00:00:00Z", pushedAt: nil, homepage: homepage, archived: archived)
  }

  static let owner = RepositoryOwner(
    login: "zoë", id: 7, avatarURL: "https://a/u/7", htmlURL: "https://github.com/zo%C3%AB", type: "User")

  @Test func stringPropertiesReturnWhatWasGiven() {
    let r = Self.make()
    #expect(r.id == 42 && r.name == "r" && r.fullName == "zoë/r" && r.htmlURL == "https://github.com/zoë/r")
    #expect(r.description == "<b>emoji 🚀</b>" && r.language == "Swift" && r.license == "")
    #expect(r.stargazersCount == Int.max && r.forksCount == -1 && r.openIssuesCount == 0)
    #expect(r.topics == ["cli", "日本語", ""])
    #expect(r.createdAt == "2020-01-01T00:00:00Z" && r.updatedAt == "2021-01-01T00:00:00Z")
    #expect(r.pushedAt == nil && r.homepage == nil)
    #expect(r.fork && !r.archived)
    #expect(r.owner == Self.owner)
    #expect(r.ownerLogin == "zoë" && r.ownerID == 7)
  }

  @Test func absentIsNotEmpty() {
    let r = Self.make(description: "", language: nil, owner: nil, topics: [])
    #expect(r.description == "")
    #expect(r.language == nil)
    #expect(r.owner == nil && r.ownerLogin == nil && r.ownerID == nil)
    #expect(r.topics.isEmpty)
    #expect(r.view.utf8(.description)?.count == 0)
    #expect(r.view.utf8(.language) == nil)
    #expect(r.view.utf8(.ownerLogin) == nil)
    #expect(!r.view.hasOwner && r.view.ownerID == 0)
  }

  @Test func theViewReadsTheSameBytesInPlace() {
    let r = Self.make(homepage: "https://example.org", fork: false, archived: true)
    let view = r.view
    func text(_ field: RepositoryView.Text) -> String? {
      view.utf8(field).map { String(decoding: $0, as: UTF8.self) }
    }
    #expect(text(.fullName) == "zoë/r")
    #expect(text(.ownerLogin) == "zoë")
    #expect(text(.ownerType) == "User")
    #expect(text(.homepage) == "https://example.org")
    #expect(text(.pushedAt) == nil)
    #expect(view.topicCount == 3)
    #expect(
      (0..<view.topicCount).map { String(decoding: view.topic($0), as: UTF8.self) } == ["cli", "日本語", ""])
    #expect(view.id == 42 && view.stargazersCount == Int.max && view.forksCount == -1 && view.ownerID == 7)
    #expect(!view.fork && view.archived && view.hasOwner)
  }

  @Test func equalityAndHashingFollowTheFields() {
    #expect(Self.make() == Self.make())
    #expect(Set([Self.make(), Self.make()]).count == 1)
    #expect(Self.make() != Self.make(description: nil))
    #expect(Self.make(description: "") != Self.make(description: nil), "nil and empty differ")
    #expect(Self.make(topics: ["ab"]) != Self.make(topics: ["a", "b"]), "topic boundaries count")
    #expect(Self.make(fork: true) != Self.make(fork: false))
  }

  @Test func copiesShareOneBlock() {
    let r = Self.make()
    let copy = r
    #expect(copy.view.base == r.view.base)
  }
}
