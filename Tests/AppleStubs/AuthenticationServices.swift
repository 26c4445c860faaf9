// A stand-in for Apple's AuthenticationServices framework, for Scripts/apple-typecheck.sh only: the
// parts of ASWebAuthenticationSession the SDK uses, with the Swift signatures developer.apple.com
// shows (each declaration cites its page). Nothing here runs: the bodies trap.
//
// Modelling notes:
// - ASWebAuthenticationPresentationContextProviding is `@MainActor` (its page shows the attribute),
//   so a class conforming to it in its declaration is main-actor isolated, as on Darwin.
// - ASWebAuthenticationSession's page shows no actor attribute: it is a plain, non-Sendable NSObject
//   subclass here. Its completion handler is not `@Sendable` in Apple's typealias; a `@Sendable`
//   closure converts to it, as on Darwin.
// - ASPresentationAnchor is `UIWindow` on iOS and visionOS and `NSWindow` on macOS, main-actor
//   classes of UIKit and AppKit (which AuthenticationServices re-exports). A main-actor `UIWindow`
//   stands in for both; the SDK only names the type.
// - This module is built with library evolution, so its enums are not frozen: a switch over
//   ASWebAuthenticationSessionError.Code needs `@unknown default`, as with Apple's.
// - Availability attributes are left out (Swift ignores them on Linux); the SDK's
//   `#available(iOS 17.4, macOS 14.4, visionOS 1.1, *)` checks are true here, and both of their
//   branches are type-checked.
public import Foundation

/// The window a sign-in sheet is shown over; `UIWindow` on iOS, `NSWindow` on macOS (see the
/// file's notes). https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
public typealias ASPresentationAnchor = UIWindow

/// UIKit's window, a main-actor class. https://developer.apple.com/documentation/uikit/uiwindow
@MainActor open class UIWindow: NSObject {}

/// Asked for the window to show the session over.
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
@MainActor public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// The window to show `session` over.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// The system's web sign-in session.
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
open class ASWebAuthenticationSession: NSObject {
    /// What the session is handed when it ends: the callback URL, or an error.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// Which navigation ends the session (iOS 17.4, macOS 14.4, visionOS 1.1).
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback
    open class Callback: NSObject {
        /// A callback matching URLs with a custom scheme.
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/customscheme(_:)
        open class func customScheme(_ customScheme: String) -> Self { fatalError("stub") }

        /// A callback matching `https` URLs with this host and path.
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/https(host:path:)
        open class func https(host: String, path: String) -> Self { fatalError("stub") }
    }

    /// A session that ends on a URL with `callbackURLScheme`.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)-7fpox
    public init(
        url: URL, callbackURLScheme: String?,
        completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
    ) {
        fatalError("stub")
    }

    /// A session that ends on a URL `callback` matches.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callback:completionhandler:)-6nut7
    public init(
        url: URL, callback: ASWebAuthenticationSession.Callback,
        completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
    ) {
        fatalError("stub")
    }

    /// Provides the window; held weakly.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?

    /// Whether the browser should share no cookies with the user's normal session.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    open var prefersEphemeralWebBrowserSession: Bool = false

    /// Starts the session; `false` when it could not start.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    open func start() -> Bool { fatalError("stub") }

    /// Cancels the session and dismisses its sheet.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/cancel()
    open func cancel() { fatalError("stub") }
}

/// The errors of a web authentication session.
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror
public struct ASWebAuthenticationSessionError: CustomNSError, Hashable {
    /// The error codes (not frozen: switches need `@unknown default`).
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code
    public enum Code: Int, @unchecked Sendable {
        /// The user cancelled.
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/canceledlogin
        case canceledLogin = 1
        /// No presentation context provider was set.
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextnotprovided
        case presentationContextNotProvided = 2
        /// The presentation anchor could not show the session.
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextinvalid
        case presentationContextInvalid = 3
    }

    /// The error's code.
    public var code: Code { fatalError("stub") }

    /// The error domain.
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerrordomain
    public static var errorDomain: String { "com.apple.AuthenticationServices.WebAuthenticationSession" }

    /// The code as a number.
    public var errorCode: Int { code.rawValue }
}
