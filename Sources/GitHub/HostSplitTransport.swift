import CurlClient

/// Sends avatar-host requests to one transport and everything else to another, so the two have
/// separate budgets of transfers and connections and a slow avatar host cannot delay an API call.
struct HostSplitTransport: HTTPClientTransport {
  let api: any HTTPClientTransport
  let avatars: any HTTPClientTransport
  /// `{avatarBase}/u/`: the path keeps API calls apart when both share a host (the demo, GHES), and
  /// the slash keeps `https://a.example` from matching `https://a.example.evil`.
  let avatarPrefix: String

  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    if request.url.hasPrefix(avatarPrefix) { return try await avatars.execute(request) }
    return try await api.execute(request)
  }
}
