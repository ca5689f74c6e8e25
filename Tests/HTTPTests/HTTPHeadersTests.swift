import Clocks
import Digests
import Encodings
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPHeadersTests {
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

  @Test(arguments: [
    ("", ""), ("swift", "swift"), ("stars:>=0 language:c++", "stars%3A%3E%3D0%20language%3Ac%2B%2B"),
    ("ünï/😀?&=#%+", "%C3%BCn%C3%AF%2F%F0%9F%98%80%3F%26%3D%23%25%2B"), ("a~b-c.d_e", "a~b-c.d_e"),
  ])
  func percentEncodingFormsAgree(text: String, encoded: String) {
    #expect(URLEncoding.percentEncode(text) == encoded)
    var emitted: [UInt8] = []
    URLEncoding.percentEncode(text) { emitted.append($0) }
    #expect(emitted == Array(encoded.utf8))
    #expect(URLEncoding.isUnreserved(text) == (text == encoded))
    #expect(URLEncoding.formatQuery([("q", text), ("after", "20")]) == "q=\(encoded)&after=20")
    #expect(URLEncoding.percentDecode(encoded) == text)
  }

  @Test func trimmingKeepsTheInside() {
    #expect(" \t a b \t".trimmingSpaces == "a b")
    #expect("\u{00A0}\n x y \r\n".trimmingSpaces == "\u{00A0}\n x y \r\n")
    #expect("\u{00A0}\n x y \r\n".trimmingWhitespace == "x y")
    #expect("   ".trimmingWhitespace.isEmpty && "".trimmingSpaces.isEmpty)
    #expect("x".trimming { $0 == "x" }.isEmpty)
    #expect("swift".trimmingWhitespace == "swift" && "a \t b".trimmingWhitespace == "a \t b")
    #expect("x\u{0085}".trimmingWhitespace == "x" && "\u{2003}é ".trimmingWhitespace == "é")
  }

  @Test func queryItemsDecodeNamesAndValuesAndSkipEmptyPairs() {
    let items = URLEncoding.parseQuery("q=a+b%21&&%71=x&flag&=v&bad=%zz&after=20&")
    #expect(items.map(\.name) == ["q", "q", "flag", "", "after"])
    #expect(items.map(\.value) == ["a b!", "x", "", "v", "20"])
    var raw: [String] = []
    URLEncoding.forEachQueryItem("a=1&&b&c=%41=") {
      let (name, value) = ($0.withUnsafeBufferPointer(Array.init), $1.withUnsafeBufferPointer(Array.init))
      raw.append(String(decoding: name, as: UTF8.self) + "|" + String(decoding: value, as: UTF8.self))
    }
    #expect(raw == ["a|1", "b|", "c|%41="])
    #expect(URLEncoding.percentDecode("a+b", plusAsSpace: false) == "a+b")
    #expect(URLEncoding.percentDecode("ünï", plusAsSpace: true) == "ünï")
    #expect(URLEncoding.percentDecode("%FF") == nil && URLEncoding.percentDecode("%4") == nil)
  }

  @Test func durationNumbersTruncateAndClamp() {
    #expect(Duration.milliseconds(1500).wholeMilliseconds == 1500)
    #expect(Duration.microseconds(1999).wholeMilliseconds == 1)
    #expect(Duration.microseconds(1999).wholeMicroseconds == 1999)
    #expect(Duration.nanoseconds(999).wholeMicroseconds == 0)
    #expect(Duration.seconds(-3).wholeMilliseconds == 0)
    #expect(Duration.seconds(Int64.max).wholeMilliseconds == Int.max / 4)
    #expect(Duration.seconds(Int64.max / 1000).wholeMicroseconds == Int.max / 4)
    #expect(Duration.milliseconds(2_250).secondsValue == 2.25)
  }

  @Test func fnv1aMatchesTheReferenceValues() {
    #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
    #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
    #expect(FNV1a.hash(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
  }
}

@Suite(.timeLimit(.minutes(2))) struct HTTPTokenTests {
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
