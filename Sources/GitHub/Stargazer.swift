/// One user from the classic stargazers list (kept for conformance; cards use the history).
struct Stargazer: Sendable, Hashable {
  var login: String
  var id: Int
  var avatarURL: String
  var starredAt: String?
}
