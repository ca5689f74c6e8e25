import HTTP

/// Who is reading: the reader behind a request, and the end of a session whose token GitHub refused.
/// Without sign-in every reader is anonymous, at no cost.
struct ReaderLookup: Sendable {
  /// Sign in with GitHub, when configured.
  let signIn: SignIn?

  /// The reader behind `request`: anonymous when sign-in is off or no session cookie came.
  func reader(_ request: HTTPRequest) async -> Reader {
    guard let signIn else { return .anonymous }
    return await signIn.reader(for: request)
  }

  /// Ends `reader`'s session because GitHub refused its token (the answer then came anonymously).
  func tokenRevoked(_ reader: inout Reader) async {
    await signIn?.tokenRevoked(&reader)
  }
}

extension BatchView.LimitOwner {
  /// Whose rate limit `reader`'s batch ran into: a signed-in reader's own, or the site's, with a
  /// sign-in link when sign-in is on.
  init(_ reader: Reader) {
    self = reader.session != nil ? .reader : .site(offersSignIn: reader.signInEnabled)
  }
}
