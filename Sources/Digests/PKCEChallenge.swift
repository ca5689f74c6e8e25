import Encodings

/// PKCE's S256 method (RFC 7636 §4.2) and the verifier's shape (§4.1): the one home of the algorithm,
/// used by the GitHub client (`GitHub.PKCE`) and by the GitHub double's token endpoint.
public enum PKCEChallenge {
  /// `BASE64URL-ENCODE(SHA256(ASCII(verifier)))`, without padding.
  public static func s256(verifier: String) -> String { Base64.urlEncode(SHA256.hash(Array(verifier.utf8))) }

  /// Whether `verifier` is 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
  public static func isValidVerifier(_ verifier: String) -> Bool {
    (43...128).contains(verifier.utf8.count) && URLEncoding.isUnreserved(verifier)
  }
}
