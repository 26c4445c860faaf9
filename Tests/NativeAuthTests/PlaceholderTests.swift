import Foundation
import Testing
@testable import NativeAuth

@Test func placeholder() { #expect(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1")!).method == "GET") }
