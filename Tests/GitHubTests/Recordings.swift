import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

/// One exchange from ../shared/github-recordings/normalized.
struct Recording {
  var file: String
  var url: String
  var status: Int
  var headers: HTTPHeaders
  var body: [UInt8]

  var response: ClientResponse {
    ClientResponse(status: HTTPStatus(code: status), headers: headers, body: body)
  }
}

enum Recordings {
  /// The normalized recordings folder in `../shared`.
  static func directory() throws -> String {
    try SharedData.path("github-recordings/normalized")
  }

  static func files(containing fragment: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory())
      .filter { $0.hasSuffix(".json") && $0.contains(fragment) }.sorted()
  }

  static func load(_ file: String) throws -> Recording {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory() + "/" + file))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let request = root["request"] as? [String: Any], let url = request["url"] as? String,
      let response = root["response"] as? [String: Any], let status = response["status"] as? Int,
      let headers = response["headers"] as? [String: String]
    else { throw RecordingError("\(file) is not in the normalized format") }
    var body: [UInt8] = []
    if let json = response["body_json"], !(json is NSNull) {
      body = Array(try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
    } else if let text = response["body_text"] as? String {
      body = Array(text.utf8)
    }
    let pairs = headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    return Recording(file: file, url: url, status: status, headers: HTTPHeaders(pairs), body: body)
  }
}

struct RecordingError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
