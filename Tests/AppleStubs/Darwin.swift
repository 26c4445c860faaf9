// A stand-in for Darwin, the C library of Apple's platforms, for Scripts/apple-typecheck.py only:
// the platform variants of the check compile the `#if canImport(Darwin)` branches against it. It
// re-exports Glibc, whose POSIX calls Darwin shares (so the calls both branches make are checked
// against Glibc's Swift signatures, not Darwin's), and declares what Darwin has that Glibc lacks
// and the SDK uses, from Apple's headers (the iPhoneOS 17.4 SDK in the code index:
// danpashin/sdks, usr/include/...). Nothing here runs.
@_exported public import Glibc

/// `fcntl` command: flush the file's data to the drive's media, past its cache.
/// usr/include/sys/fcntl.h:253: `#define F_FULLFSYNC 51`.
public var F_FULLFSYNC: Int32 { 51 }
