#if canImport(LoopbackHTTP)
    public import Foundation
    import AuthSupport

    extension LoopbackUserAgent {
        /// Opens `url` in the user's default browser: `open` on macOS, `xdg-open` on Linux.
        ///
        /// This is the default browser opener of ``LoopbackUserAgent``. It returns once the opening
        /// tool has exited successfully.
        ///
        /// - Throws: an error describing the failure when `url` is not `http` or `https`, when the tool
        ///   cannot be started, when it exits with a failure status (no browser configured, no
        ///   graphical session), or on platforms without either tool. ``LoopbackUserAgent`` reports it
        ///   as ``ExternalUserAgentError/isBrowserLaunchFailed``, with this error as its
        ///   ``ExternalUserAgentError/underlyingError``.
        public static func openInSystemBrowser(_ url: URL) async throws {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw BrowserLaunchFailure("only http and https URLs are opened in the browser")
            }
            #if os(macOS)
                try await runTool(at: "/usr/bin/open", arguments: [url.absoluteString])
            #elseif os(Linux)
                try await runTool(at: "/usr/bin/env", arguments: ["xdg-open", url.absoluteString])
            #else
                throw BrowserLaunchFailure("this platform has no default browser opener; pass one to LoopbackUserAgent")
            #endif
        }

        #if os(macOS) || os(Linux)
            /// Runs `path` with `arguments` (no shell, so the URL is one argument whatever it holds), its
            /// output discarded, and waits for it to exit without blocking a thread.
            private static func runTool(at path: String, arguments: [String]) async throws {
                let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                    let once = Locked<CheckedContinuation<Int32, any Error>?>(continuation)
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: path)
                    process.arguments = arguments
                    process.standardInput = FileHandle.nullDevice
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    process.terminationHandler = { finished in
                        let status = finished.terminationStatus
                        once.withLock { $0.take() }?.resume(returning: status)
                    }
                    do {
                        try process.run()
                    } catch {
                        once.withLock { $0.take() }?.resume(
                            throwing: BrowserLaunchFailure("\(path) could not start: \(error)"))
                    }
                }
                guard status == 0 else {
                    let tool = arguments.first.flatMap { path.hasSuffix("/env") ? $0 : nil } ?? path
                    let reason = status == 127 ? "\(tool) was not found" : "\(tool) exited with status \(status)"
                    throw BrowserLaunchFailure(reason)
                }
            }
        #endif
    }

    /// Why the default browser opener failed, in plain language.
    struct BrowserLaunchFailure: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) { self.description = description }
    }
#endif
