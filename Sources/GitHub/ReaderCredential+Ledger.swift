import Credentials

extension ReaderCredential {
  /// The reader's name in ledgers and scoped keys: `reader:<id>`.
  var ledgerName: String { "reader:\(userID)" }
}
