/// Why a step of the OAuth web flow failed. No case carries the client secret, a code, a verifier
/// or a token: texts from upstream are redacted, cleaned of control characters and cut short.
public enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The user pressed Cancel (`error=access_denied` on the callback, or in an exchange answer).
  case accessDenied
  /// The code is expired, replayed or unknown (GitHub answers this with status 200 and error JSON).
  case badVerificationCode(String)
  /// GitHub did not accept the client id and secret.
  case incorrectClientCredentials
  /// The redirect URI is not the one registered for the app (or not the one the code was issued for).
  case redirectURIMismatch
  /// The PKCE verifier does not match the challenge the code was issued for.
  case badVerifier
  /// GitHub refused a refresh token: used already, revoked, expired or unknown (`bad_refresh_token`,
  /// status 200 with error JSON). The token cannot be renewed; the reader must sign in again.
  case badRefreshToken
  /// GitHub answered 401 to the token (`GET /user`), or does not know it (`revoke`).
  case unauthorized
  /// GitHub could not be reached in time, or answered with a 5xx or a refusal to serve now.
  case unavailable(String)
  /// A body that is not what GitHub documents (not JSON, wrong types, too large, bad values).
  case hostile(String)

  /// A short explanation for logs; never a secret.
  public var description: String {
    switch self {
    case .accessDenied: return "the user denied access"
    case .badVerificationCode(let message): return "bad verification code: \(message)"
    case .incorrectClientCredentials: return "GitHub refused the client id or secret"
    case .redirectURIMismatch: return "the redirect URI does not match the app's"
    case .badVerifier: return "GitHub refused the PKCE verifier"
    case .badRefreshToken: return "GitHub refused the refresh token (used, revoked or expired)"
    case .unauthorized: return "GitHub did not accept the token"
    case .unavailable(let message): return "GitHub unavailable: \(message)"
    case .hostile(let message): return "unexpected answer from GitHub: \(message)"
    }
  }
}
