extension SmartTapReader {
    /// For the `smarttap` fuzz target (PassTapFuzzTargets): steps 4 and 5 on a joined GET DATA
    /// answer, with session keys derived (HKDF, as a session does) from fixed inputs instead of
    /// an ECDH, so seeds sealed for them reach the decrypted records.
    package static func outcome(
        getData data: [UInt8], sessionID: [UInt8], sharedSecret: [UInt8], deviceKey: [UInt8], info: [UInt8], limits: SmartTapLimits = .standard
    ) -> SmartTapOutcome {
        let keys = SmartTapSessionKeys(sharedSecret: sharedSecret, deviceKey: deviceKey, info: info)
        do {
            let values = try serviceValues(getData: data, sessionID: sessionID, keys: keys, limits: limits)
            return SmartTapOutcome(
                status: values.objects.isEmpty ? .noPass : .success, problem: values.objects.isEmpty ? "no pass" : nil,
                customerID: values.customerID, tapID: values.tapID, objects: values.objects)
        } catch {
            return SmartTapOutcome(status: error.status, problem: error.problem)
        }
    }
}
