import Testing

@testable import HTTP

@Suite struct HTTPHeadersTests {
  @Test func lookupIgnoresCaseAndKeepsDuplicates() {
    var h: HTTPHeaders = ["Set-Cookie": "a=1", "content-type": "text/html"]
    h.add(name: "set-cookie", value: "b=2")
    #expect(h["Content-Type"] == "text/html")
    #expect(h.values(for: "SET-COOKIE") == ["a=1", "b=2"])
    h.replaceOrAdd(name: "Set-Cookie", value: "c=3")
    #expect(h.values(for: "set-cookie") == ["c=3"])
  }

  @Test func tokensInCommaLists() {
    let h: HTTPHeaders = ["Connection": "keep-alive, Upgrade"]
    #expect(h.containsToken("upgrade", in: "connection"))
    #expect(!h.containsToken("close", in: "connection"))
  }

  @Test func queryDecoding() {
    let r = HTTPRequest(method: .get, target: "/?q=swift+lang%3A%22x%22&sort=stars&bad=%zz")
    #expect(r.path == "/")
    #expect(r.queryValue("q") == "swift lang:\"x\"")
    #expect(r.queryValue("sort") == "stars")
    #expect(r.queryValue("bad") == nil)
    #expect(URLEncoding.percentEncode("a b/ü") == "a%20b%2F%C3%BC")
  }
}

@Suite struct HTTPTokenTests {
  @Test func tokensAreRunsOfTchars() {
    #expect(HTTPToken.isToken("GET"))
    #expect(HTTPToken.isToken("X-Custom_1.2~!#$%&'*+^`|"))
    #expect(!HTTPToken.isToken(""))
    #expect(!HTTPToken.isToken("a b"))
    #expect(!HTTPToken.isToken("a:b"))
    #expect(!HTTPToken.isToken("é"))
    let tchars = (0...255).filter { HTTPToken.isTokenChar(UInt8($0)) }
    #expect(tchars.count == 10 + 26 + 26 + 15)
  }
}
