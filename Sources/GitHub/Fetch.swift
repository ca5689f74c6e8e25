import Credentials
import CurlClient
import HTTP

/// One cacheable GET: where to send it, how to read the answer into a `Value`, and whose the answer is.
struct Fetch<Value: CachedPayload>: Sendable {
  /// Where the caller's answer is cached and coalesced: the URL for a shared answer, the URL under
  /// the caller's name for one that is the caller's own (`scope`).
  var key: String
  var endpoint: GitHubEndpoint
  /// The rate-limit bucket; nil for the avatar host.
  var resource: RateLimitResource?
  var request: ClientRequest
  var ttl: Double
  var decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Value
  /// The signed-in reader it is made as; nil for the server's token (or none).
  var reader: ReaderScope? = nil
  /// Whose the answer is before it is read (see `AnswerScope`).
  var scope: AnswerScope = .shared
  /// For an anonymous reader's answer: leaves out what is not public and says how much it left out,
  /// before anything is cached.
  var screen: (@Sendable (inout Value) -> Int)? = nil
}

/// Whose an answer is, decided before it is read; the items then decide again (`CachedPayload.saysPublic`).
enum AnswerScope: Sendable, Equatable {
  /// Anyone's: cached under the URL, stored in the shared store, coalesced with any caller. For
  /// callers that cannot see private repositories (anonymous readers, whose answers are screened, and
  /// readers whose scopes lack `repo`) and for repositories known to be public.
  case shared
  /// The caller's alone: cached in this process's memory only (never in the shared store, never
  /// under a shared lock), coalesced only with the same caller. `publicKey` is the URL's shared entry:
  /// its ETag may prove the caller's answer equal to it (a 304), and a caller's answer that turns out
  /// public is stored there too.
  case own(publicKey: String)

  /// The shared entry's key, for an own answer.
  var publicKey: String? {
    if case .own(let key) = self { return key }
    return nil
  }
}

/// What the state needs of a signed-in reader: whose ledger to count on, what to redact, and under
/// which name their own answers are kept.
struct ReaderScope: Sendable {
  /// The GitHub user id: the reader's ledger, and who may join the reader's requests in flight.
  let id: Int
  /// `reader:<id>`, the prefix of the reader's names in the shared ledger and of their own keys.
  let ledgerName: String
  /// What the token may see (after what the answers taught: see `PrivacyFacts`).
  let access: RepositoryAccess
  /// The server's redactor plus the reader's token.
  let redactor: Redactor

  init(_ credential: ReaderCredential, access: RepositoryAccess, redactor: Redactor) {
    id = credential.userID
    ledgerName = credential.ledgerName
    self.access = access
    self.redactor = redactor.adding(credential.token)
  }

  /// The key of `url` as this reader's own answer.
  func ownKey(_ url: String) -> String { ledgerName + " " + url }
}

extension AnswerScope {
  /// The name the server's own answers are kept under (`server <url>`).
  static let serverName = "server"

  /// The key of `url` as the server token's own answer.
  static func serverKey(_ url: String) -> String { serverName + " " + url }
}
