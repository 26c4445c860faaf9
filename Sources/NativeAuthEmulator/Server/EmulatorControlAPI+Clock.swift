import Foundation
import LoopbackHTTP
import NativeAuth

/// `GET /clock`, `POST /clock/advance`: the tenant's clock.
extension EmulatorControlAPI {
    var clockObject: JSONObject {
        let now = tenant.clock.now()
        return [
            "now": .string(Self.isoDate(now)), "epochSeconds": .double(now.timeIntervalSince1970),
            "manual": .bool(tenant.clock is ManualClock),
        ]
    }

    func advanceClock(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        guard let clock = tenant.clock as? ManualClock else {
            throw .conflict(
                "clock_not_manual",
                "The tenant runs on the system clock, which cannot be moved; start the server with a "
                    + "ManualClock (nativeauth serve --manual-clock) to advance time.")
        }
        let seconds = try ControlFields(request: request).number("seconds")
        guard seconds.isFinite, (0...(86_400 * 3660)).contains(seconds) else {
            throw .badRequest("seconds must be a number from 0 to 316224000 (ten years).")
        }
        clock.advance(by: seconds)
        return Self.json(200, clockObject)
    }
}
