import CurlClient
import HTTP

/// One cacheable GET: where to send it and how to read the answer into a `Value`.
struct Fetch<Value: CachedPayload>: Sendable {
  /// The full URL; also the cache and coalescing key.
  var key: String
  var endpoint: GitHubEndpoint
  /// The rate-limit bucket; nil for the avatar host.
  var resource: RateLimitResource?
  var request: ClientRequest
  var ttl: Double
  var decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Value
  /// The signed-in reader it is made as; nil for the server's token (or none).
  var reader: ReaderScope? = nil
}

/// What the state needs of a signed-in reader: whose ledger to count on, what to redact, and whether
/// the answers are the reader's alone (then the fetch's key is already scoped to the reader).
struct ReaderScope: Sendable {
  /// The GitHub user id: the reader's ledger, and who may join the reader's requests in flight.
  let id: Int
  /// `reader:<id>`, the prefix of the reader's names in the shared ledger.
  let ledgerName: String
  /// The token grants private repositories, so nothing fetched with it is shared.
  let seesPrivate: Bool
  /// The server's redactor plus the reader's token.
  let redactor: Redactor

  init(_ credential: ReaderCredential, redactor: Redactor) {
    id = credential.userID
    ledgerName = credential.ledgerName
    seesPrivate = credential.seesPrivate
    self.redactor = redactor.adding(credential.token)
  }

  /// The key of `url` as fetched by this reader: the URL itself for public answers, the URL under
  /// the reader's name for answers only this reader may see.
  func key(_ url: String) -> String { seesPrivate ? ledgerName + " " + url : url }
}
