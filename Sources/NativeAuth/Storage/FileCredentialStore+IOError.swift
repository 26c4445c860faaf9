public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileCredentialStore {
    /// A file system call of a ``FileCredentialStore`` failed.
    ///
    /// It carries the POSIX error number and the name of the call that failed. The description
    /// names the call, the key and the system's message; it never includes file contents or paths.
    public struct IOError: Error, LocalizedError, CustomStringConvertible, Sendable {
        /// The POSIX error number (`errno`), such as `EACCES` or `EIO`.
        public let code: Int32
        /// The call that failed: `open`, `read`, `write`, `fsync`, `rename`, `unlink`, `mkdir`,
        /// `chmod`, `stat` or `flock`.
        public let operation: String
        /// The key being read or written, or `nil` when the failure concerns the directory only.
        public let key: String?
        /// The store's directory.
        public let directory: URL

        /// The store's lock file (`.lock` in its directory) is a symbolic link or a directory, so
        /// no write can take the lock: remove that entry. Reading still works.
        public let isLockFileUnusable: Bool

        init(code: Int32, operation: String, key: String?, directory: URL, isLockFileUnusable: Bool = false) {
            self.code = code
            self.operation = operation
            self.key = key
            self.directory = directory
            self.isLockFileUnusable = isLockFileUnusable
        }

        /// `true` when the file system refused access (`EACCES` or `EPERM`).
        public var isPermissionDenied: Bool { code == EACCES || code == EPERM }

        /// The failed call, the key and the system's message for ``code``.
        public var description: String {
            let message = String(cString: strerror(code))
            let subject = key.map { " for key \"\($0)\"" } ?? ""
            if isLockFileUnusable {
                return
                    "FileCredentialStore.IOError: the lock file '\(FileCredentialStore.lockFileName)' in the store's "
                    + "directory is a symbolic link or a directory; remove it (errno \(code))."
            }
            return "FileCredentialStore.IOError: \(operation) failed\(subject): \(message) (errno \(code))."
        }

        /// Same as ``description``.
        public var errorDescription: String? { description }
    }
}
