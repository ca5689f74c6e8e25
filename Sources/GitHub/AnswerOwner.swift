/// Whose answers a reader's calls get, as the layers above need it to keep lists apart: everyone's
/// (the reader cannot see private repositories, so their answers are shared), or the reader's own
/// (their token may see private repositories, so their lists, list positions and read-ahead are
/// theirs). Decided by `GitHubClient.owner(of:)` from the token and what answers taught.
public enum AnswerOwner: Sendable, Hashable {
  /// Shared by every reader who is not one's own.
  case everyone
  /// One reader's, by GitHub user id.
  case reader(Int)
}
