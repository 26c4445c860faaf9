// swift-format-ignore-file
// snippet: transport-pinning
#if canImport(Security)
import CryptoKit
import Foundation
import NativeAuth
import Security

/// Refuses redirects; accepts a server only when its leaf certificate is one of the pinned ones.
final class PinningDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let pinnedCertificateHashes: Set<Data>

    init(pinnedCertificateHashes: Set<Data>) {
        self.pinnedCertificateHashes = pinnedCertificateHashes
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        nil  // hand the 3xx back as it is
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust else {
            return (.performDefaultHandling, nil)
        }
        guard let trust = challenge.protectionSpace.serverTrust,
            SecTrustEvaluateWithError(trust, nil),
            let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
            let leaf = chain.first
        else {
            return (.cancelAuthenticationChallenge, nil)
        }
        let hash = Data(SHA256.hash(data: SecCertificateCopyData(leaf) as Data))
        guard pinnedCertificateHashes.contains(hash) else {
            return (.cancelAuthenticationChallenge, nil)
        }
        return (.useCredential, URLCredential(trust: trust))
    }
}

struct PinnedTransport: HTTPTransport {
    private let session: URLSession
    private let timeout: TimeInterval

    init(pinnedCertificateHashes: Set<Data>, timeout: TimeInterval = 30) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(
            configuration: configuration,
            delegate: PinningDelegate(pinnedCertificateHashes: pinnedCertificateHashes),
            delegateQueue: nil)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        // Cancelling the calling task cancels the request; URLSession then throws URLError(.cancelled).
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String {
                headers[name] = "\(value)"
            }
        }
        return HTTPResponse(statusCode: http.statusCode, headers: headers, body: data)
    }
}
#endif
// snippet: end

// Compiled where Security exists (Apple platforms), and on Linux by Scripts/apple-typecheck.py
// against its stub frameworks; the formatter leaves this file alone, as the sample does not indent
// inside #if.
