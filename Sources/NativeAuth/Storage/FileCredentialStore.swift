import AuthCrypto
import AuthSupport
import Dispatch
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A credential store that keeps each item in its own file in one directory: the default store on
/// Linux, and an option anywhere a keychain is not available.
///
/// Each key maps to one file, named from the key's UTF-8 bytes in lowercase hex (a SHA-256 of the
/// key for keys over 100 bytes), so any key is a safe, distinct name inside the directory, on
/// case-sensitive and case-insensitive file systems alike. Files hold the bytes in a small
/// versioned envelope with a CRC-32, so a cut-short or altered file is reported as
/// ``CredentialStoreDamagedError`` instead of being handed to the SDK.
///
/// The directory is created on first write with mode 0700 (and tightened to 0700 if it exists,
/// belongs to the current user and is more open); files are created with mode 0600, whatever the
/// process's umask. Modes keep other users out; they do not encrypt anything, so choose a
/// directory only the user can read, such as ``defaultDirectory(applicationName:)``.
///
/// Writes replace a file atomically: the new contents go to a temporary file in the same
/// directory, which is flushed to disk and renamed over the old file, and then the directory is
/// flushed. A writer that dies part way leaves either the old item or the new one, never a mixture;
/// its leftover temporary file is ignored by reads and deleted by a later write once it is a minute
/// old.
///
/// Any number of tasks, store values and processes may use one directory at once. Reads need no
/// lock: they always see a complete file. Writes and removals are serialised per directory within
/// the process, and across processes by an advisory `flock(2)` on a `.lock` file in the directory;
/// the last write wins. Writes and removals wait for that lock on a background dispatch queue, never
/// on the Swift concurrency thread pool; reads of these small files happen inline.
///
/// ```swift
/// let store = FileCredentialStore(directory: FileCredentialStore.defaultDirectory(applicationName: "MyApp"))
/// let client = NativeAuthClient(configuration: configuration, credentialStore: store)
/// ```
public struct FileCredentialStore: CredentialStore {
    /// The directory that holds the files.
    public let directory: URL

    /// The directory's path, as the file system calls receive it.
    let path: String
    /// Test seam: the step of a write at which to stop, as if the process had been killed there.
    let crashPoint: WriteStep?
    /// How old a leftover temporary file must be before a write deletes it.
    let staleTemporaryFileAge: TimeInterval

    /// Creates a store that keeps its files in `directory`.
    ///
    /// Nothing is touched until the first call: the directory is created (with its missing
    /// parents, mode 0700) on the first write.
    ///
    /// - Parameter directory: a file URL of a directory used only for credentials.
    public init(directory: URL) {
        self.init(directory: directory, crashPoint: nil, staleTemporaryFileAge: 60)
    }

    init(directory: URL, crashPoint: WriteStep?, staleTemporaryFileAge: TimeInterval) {
        self.directory = directory
        var path = directory.standardizedFileURL.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.path = path
        self.crashPoint = crashPoint
        self.staleTemporaryFileAge = staleTemporaryFileAge
    }

    /// The directory a Linux app should keep its credentials in:
    /// `$XDG_DATA_HOME/<applicationName>/credentials`, or `~/.local/share/<applicationName>/credentials`
    /// when `XDG_DATA_HOME` is unset, empty or relative (as the XDG Base Directory specification says).
    ///
    /// On Apple platforms it is `<Application Support>/<applicationName>/credentials`, though the
    /// keychain (`KeychainCredentialStore`) is the better store there.
    ///
    /// The directory is not created here; ``FileCredentialStore`` creates it on the first write.
    ///
    /// - Parameter applicationName: one path component naming the app, such as `"MyApp"` or a
    ///   reverse-DNS identifier; a `/` in it is replaced with `_`.
    public static func defaultDirectory(applicationName: String) -> URL {
        defaultDirectory(applicationName: applicationName, environment: ProcessInfo.processInfo.environment)
    }

    static func defaultDirectory(applicationName: String, environment: [String: String]) -> URL {
        var component = applicationName.replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "\u{0}", with: "_")
        if component.isEmpty || component == "." || component == ".." { component = "_" + component }
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
                .appendingPathComponent("Library/Application Support", isDirectory: true)
        #else
            let base: URL
            if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
                base = URL(fileURLWithPath: dataHome, isDirectory: true)
            } else {
                let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
                base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
                    ".local/share", isDirectory: true)
            }
        #endif
        return base.appendingPathComponent(component, isDirectory: true)
            .appendingPathComponent("credentials", isDirectory: true)
    }

    // MARK: CredentialStore

    /// The data stored under `key`, or `nil` when there is no file for it.
    ///
    /// Reading never changes the directory.
    ///
    /// - Throws: ``CredentialStoreDamagedError`` when the file is cut short, altered or not a
    ///   credential file; ``CredentialStoreVersionError`` when a newer SDK wrote it;
    ///   ``IOError`` when the file system refuses (permissions, a symbolic link in place of the
    ///   file, I/O errors).
    public func data(forKey key: String) async throws -> Data? {
        guard let bytes = try readFile(forKey: key) else { return nil }
        do {
            return try CredentialEnvelope.decode(bytes)
        } catch .damaged(let code) {
            throw CredentialStoreDamagedError(key: key, code: code)
        } catch .unsupportedVersion(let version) {
            throw CredentialStoreVersionError(
                key: key, version: Int(version), supportedVersion: Int(CredentialEnvelope.currentVersion))
        }
    }

    /// Stores `data` under `key`, atomically replacing any file already there (even a damaged one
    /// or one written by a newer SDK), and flushes it to disk before returning.
    ///
    /// The call waits for any write in progress on the same directory, in this process or another,
    /// and once started the write completes even if the calling task is cancelled.
    ///
    /// - Throws: ``IOError`` when the directory or file cannot be created or written (with
    ///   `EFBIG` when `data` is over 16 MiB). When the error comes from the final flush of the
    ///   directory, the new data may already be in place.
    public func setData(_ data: Data, forKey key: String) async throws {
        guard data.count <= CredentialEnvelope.maximumPayloadSize else {
            throw failure("write", key: key, code: EFBIG)
        }
        let envelope = CredentialEnvelope.encode(data)
        try await onWriterQueue { try self.writeFile(envelope, forKey: key) }
    }

    /// Removes the file stored under `key` and flushes the directory; removing a key that has no
    /// file is not an error.
    ///
    /// - Throws: ``IOError`` when the file system refuses.
    public func removeData(forKey key: String) async throws {
        try await onWriterQueue { try self.removeFile(forKey: key) }
    }

    // MARK: File names

    /// The name of the file that holds `key`: `k` and the key's UTF-8 in lowercase hex for keys of
    /// up to 100 bytes, `h` and the SHA-256 of the key in lowercase hex for longer keys, then
    /// `.credential`. Lowercase hex is distinct under case folding and Unicode normalisation, and
    /// never contains `/` or `..`.
    static func fileName(forKey key: String) -> String {
        let bytes = Array(key.utf8)
        let stem = bytes.count <= 100 ? "k" + hex(bytes) : "h" + hex(SHA256.hash(bytes))
        return stem + ".credential"
    }

    /// A fresh temporary name next to `fileName`, ending in `.tmp`.
    static func temporaryName(for fileName: String) -> String {
        let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
        return fileName + "." + String(repeating: "0", count: 16 - suffix.count) + suffix + ".tmp"
    }

    /// The name of the file whose `flock(2)` serialises writers across processes.
    static let lockFileName = ".lock"

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Writer queues

    /// One serial queue per directory path, shared by every store value in the process: a list,
    /// as there are few.
    private static let writerQueues = Locked<[(path: String, queue: DispatchQueue)]>([])

    /// Not inlined: the writes and removals share it.
    @inline(never)
    private func onWriterQueue(_ body: @escaping @Sendable () throws -> Void) async throws {
        let queue = Self.writerQueues.withLock { queues in
            if let known = queues.first(where: { $0.path == path }) { return known.queue }
            let queue = DispatchQueue(label: "nativeauth.file-credential-store")
            queues.append((path, queue))
            return queue
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The error of a failed call, boxed here rather than at each of the many places that throw
    /// one.
    @inline(never)
    func failure(_ operation: String, key: String?, code: Int32 = errno) -> any Error {
        IOError(code: code, operation: operation, key: key, directory: directory)
    }
}

/// The steps of a write at which a test can stop it, as a killed process would.
enum WriteStep: Sendable, Equatable {
    /// Half the temporary file is written.
    case halfTemporaryFileWritten
    /// The temporary file is complete and flushed, not yet renamed.
    case temporaryFileSynced
    /// The temporary file has replaced the old one; the directory is not yet flushed.
    case renamed
}

/// Thrown at a ``WriteStep``: the write stops there and leaves its files as they are.
struct SimulatedCrash: Error {}
