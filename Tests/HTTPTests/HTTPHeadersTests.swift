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
    let spaced: HTTPHeaders = ["Vary": " Sec-Fetch-Mode ,\taccept-encoding\t", "vary": ",,"]
    #expect(spaced.containsToken("Accept-Encoding", in: "VARY"))
    #expect(spaced.containsToken("sec-fetch-mode", in: "vary"))
    #expect(!spaced.containsToken("Accept", in: "Vary"))
    #expect(!spaced.containsToken("Accept-Encoding", in: "Connection"))
  }

  @Test func caseFoldingTouchesLettersOnly() {
    #expect(HTTPHeaders.equalsIgnoringCase("Content-Type", "cONTENT-tYPE"))
    #expect(!HTTPHeaders.equalsIgnoringCase("Content-Type", "Content-Typ"))
    #expect(!HTTPHeaders.equalsIgnoringCase("a@", "a`"))
    #expect(!HTTPHeaders.equalsIgnoringCase("[", "{"))
    #expect(!HTTPHeaders.equalsIgnoringCase("Ä", "ä"))
    #expect(HTTPHeaders.equalsIgnoringCase("", ""))
    let names = (0...255).map { UInt8($0) }
    for x in names {
      for y in names {
        let fold = { (b: UInt8) in b >= 65 && b <= 90 ? b | 0x20 : b }
        let same = [x].withUnsafeBufferPointer { a in
          [y].withUnsafeBufferPointer { b in HTTPHeaders.equalsIgnoringCase(a, b) }
        }
        #expect(same == (fold(x) == fold(y)), "\(x) \(y)")
      }
    }
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
