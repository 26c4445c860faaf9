import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX side of ``FileCredentialStore``: every call made on purpose, so that modes are exact
/// and each step of an atomic replacement is explicit.
extension FileCredentialStore {
    // MARK: Reading (inline, no lock: a rename always leaves a complete file in place)

    /// The bytes of the file for `key`, or `nil` when there is none.
    func readFile(forKey key: String) throws -> [UInt8]? {
        guard directory.isFileURL else { throw failure("open", key: key, code: EINVAL) }
        let filePath = path + "/" + Self.fileName(forKey: key)
        // O_NOFOLLOW: a symbolic link planted in place of the file is refused, not followed.
        // O_NONBLOCK: a FIFO planted there cannot block the reader.
        let descriptor = retryingInterrupts { open(filePath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("open", key: key, code: code)
        }
        defer { _ = close(descriptor) }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("stat", key: key) }
        guard Self.isRegularFile(info) else { throw CredentialStoreDamagedError(key: key, code: .notARegularFile) }
        let limit = CredentialEnvelope.maximumPayloadSize + CredentialEnvelope.overhead
        guard Int(info.st_size) <= limit else { throw CredentialStoreDamagedError(key: key, code: .tooLarge) }

        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: min(64 * 1024, Int(info.st_size) + 1))
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                retryingInterrupts { read(descriptor, raw.baseAddress, raw.count) }
            }
            if count < 0 { throw failure("read", key: key) }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= limit else { throw CredentialStoreDamagedError(key: key, code: .tooLarge) }
        }
        return bytes
    }

    // MARK: Writing (on the directory's writer queue)

    /// Atomically replaces the file for `key` with `envelope`.
    func writeFile(_ envelope: [UInt8], forKey key: String) throws {
        guard directory.isFileURL else { throw failure("open", key: key, code: EINVAL) }
        try ensureDirectory(key: key)
        let lock = try lockDirectory(key: key)
        defer { _ = close(lock) }
        removeStaleTemporaryFiles()

        let fileName = Self.fileName(forKey: key)
        let filePath = path + "/" + fileName
        let temporaryPath = path + "/" + Self.temporaryName(for: fileName)
        do {
            try writeTemporaryFile(envelope, at: temporaryPath, key: key)
        } catch {
            if !(error is SimulatedCrash) { _ = unlink(temporaryPath) }  // a killed process cleans nothing up
            throw error
        }
        if crashPoint == .temporaryFileSynced { throw SimulatedCrash() }
        guard rename(temporaryPath, filePath) == 0 else {
            let error = failure("rename", key: key)
            _ = unlink(temporaryPath)
            throw error
        }
        if crashPoint == .renamed { throw SimulatedCrash() }
        try syncDirectory(key: key)
    }

    /// Creates `temporaryPath` with mode 0600, writes `bytes` and flushes them to disk.
    private func writeTemporaryFile(_ bytes: [UInt8], at temporaryPath: String, key: String) throws {
        let descriptor = retryingInterrupts {
            open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(0o600))
        }
        guard descriptor >= 0 else { throw failure("open", key: key) }
        // Closing after the flush cannot lose data, so its result is not checked.
        defer { _ = close(descriptor) }
        // The mode given to open is filtered by the umask; fchmod sets it exactly.
        guard fchmod(descriptor, mode_t(0o600)) == 0 else { throw failure("chmod", key: key) }
        if crashPoint == .halfTemporaryFileWritten {
            try writeAll(bytes[0..<(bytes.count / 2)], to: descriptor, key: key)
            throw SimulatedCrash()
        }
        try writeAll(bytes[...], to: descriptor, key: key)
        guard Self.synchronize(descriptor) == 0 else { throw failure("fsync", key: key) }
    }

    private func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32, key: String) throws {
        var remaining = bytes
        while !remaining.isEmpty {
            let count = remaining.withUnsafeBytes { raw in
                retryingInterrupts { write(descriptor, raw.baseAddress, raw.count) }
            }
            if count < 0 { throw failure("write", key: key) }
            if count == 0 { throw failure("write", key: key, code: EIO) }
            remaining = remaining.dropFirst(count)
        }
    }

    // MARK: Removing (on the directory's writer queue)

    /// Removes the file for `key`, if any, and flushes the directory.
    func removeFile(forKey key: String) throws {
        guard directory.isFileURL else { throw failure("unlink", key: key, code: EINVAL) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return }  // no directory, so nothing stored
            throw failure("stat", key: key, code: code)
        }
        let lock = try lockDirectory(key: key)
        defer { _ = close(lock) }
        if unlink(path + "/" + Self.fileName(forKey: key)) != 0 {
            let code = errno
            guard code == ENOENT else { throw failure("unlink", key: key, code: code) }
        }
        try syncDirectory(key: key)
    }

    // MARK: The directory

    /// Creates the directory (mode 0700, with missing parents) or tightens an existing one the
    /// current user owns to 0700. A symbolic link in its place is followed for reading and
    /// writing but never tightened: that would change the mode of whatever it points at.
    private func ensureDirectory(key: String) throws {
        var linkInfo = stat()
        let isLink = lstat(path, &linkInfo) == 0 && linkInfo.st_mode & mode_t(0o170000) == mode_t(0o120000)
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT else { throw failure("stat", key: key, code: code) }
            try makeDirectories(key: key)
            guard stat(path, &info) == 0 else { throw failure("stat", key: key) }
        }
        guard Self.isDirectory(info) else { throw failure("mkdir", key: key, code: ENOTDIR) }
        if !isLink, info.st_uid == geteuid(), info.st_mode & mode_t(0o077) != 0 {
            guard chmod(path, mode_t(0o700)) == 0 else { throw failure("chmod", key: key) }
        }
    }

    /// `mkdir -p` with mode 0700 for every directory it creates, as the XDG specification asks.
    private func makeDirectories(key: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, mode_t(0o700)) == 0 {
                // mkdir's mode is filtered by the umask; chmod sets it exactly.
                guard chmod(prefix, mode_t(0o700)) == 0 else { throw failure("chmod", key: key) }
                continue
            }
            let code = errno
            var info = stat()
            guard code == EEXIST || (stat(prefix, &info) == 0 && Self.isDirectory(info)) else {
                throw failure("mkdir", key: key, code: code)
            }
        }
    }

    /// Takes the directory's cross-process write lock; closing the returned descriptor releases it.
    ///
    /// On a file system without `flock(2)` support the returned descriptor holds no lock, and
    /// writers from different processes rely on atomic rename alone (the last write still wins
    /// whole).
    private func lockDirectory(key: String) throws -> Int32 {
        let descriptor = retryingInterrupts {
            open(path + "/" + Self.lockFileName, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode_t(0o600))
        }
        guard descriptor >= 0 else {
            let code = errno
            // A symbolic link (O_NOFOLLOW) or a directory planted as the lock file.
            if code == ELOOP || code == EISDIR || code == EMLINK {
                throw IOError(code: code, operation: "open", key: key, directory: directory, isLockFileUnusable: true)
            }
            throw failure("open", key: key, code: code)
        }
        // Blocks this dispatch queue's thread, never a Swift concurrency thread, until the writer
        // in another process finishes its one write.
        guard retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else {
            let code = errno
            if code == ENOLCK || code == EOPNOTSUPP || code == EINVAL { return descriptor }
            _ = close(descriptor)
            throw failure("flock", key: key, code: code)
        }
        return descriptor
    }

    /// Flushes the directory, so that a rename or unlink survives a power loss.
    private func syncDirectory(key: String) throws {
        let descriptor = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY) }
        guard descriptor >= 0 else { throw failure("open", key: key) }
        defer { _ = close(descriptor) }
        guard retryingInterrupts({ fsync(descriptor) }) == 0 else {
            let code = errno
            // Some file systems cannot flush a directory; their renames are as durable as they get.
            if code == EINVAL || code == EOPNOTSUPP { return }
            throw failure("fsync", key: key, code: code)
        }
    }

    /// Deletes temporary files left by writers that died, once they are ``staleTemporaryFileAge``
    /// old. Called with the directory lock held, so no live writer of this store is using them;
    /// failures are ignored, as the files are never read.
    private func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        let now = Date()
        for name in names where name.hasSuffix(".tmp") {
            let temporaryPath = path + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: temporaryPath),
                let modified = attributes[.modificationDate] as? Date,
                now.timeIntervalSince(modified) >= staleTemporaryFileAge
            else { continue }
            _ = unlink(temporaryPath)
        }
    }

    // MARK: Helpers

    /// Flushes a file's data to the disk itself: `F_FULLFSYNC` where the system offers it
    /// (Apple platforms, where `fsync` may stop at the drive's cache), `fsync` otherwise.
    private static func synchronize(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return retryingInterrupts { fsync(descriptor) }
    }

    private static func isDirectory(_ info: stat) -> Bool { info.st_mode & mode_t(0o170000) == mode_t(0o040000) }

    private static func isRegularFile(_ info: stat) -> Bool {
        info.st_mode & mode_t(0o170000) == mode_t(0o100000)
    }
}

/// Repeats a system call that failed with `EINTR`.
private func retryingInterrupts<Value: BinaryInteger>(_ call: () -> Value) -> Value {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
