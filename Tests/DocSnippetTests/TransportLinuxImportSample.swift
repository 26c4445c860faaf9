// swift-format-ignore-file
// snippet: transport-linux-import
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
// snippet: end

// The formatter leaves this file alone: the sample does not indent inside #if.
