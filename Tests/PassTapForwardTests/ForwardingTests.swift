import Testing
@testable import PassTapForward
