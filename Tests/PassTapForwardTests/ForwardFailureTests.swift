import NIOCore
import PassTapProtocol
import Testing
@testable import PassTapForward

#if canImport(Glibc)
import Glibc
#endif

/// A sink's transport failures read as one sentence with the address and what it means, never
/// NIO's own text (`connection reset (error set): Connection refused (errno: 111)`), each with
/// the class an `observe` peer sees.
@Suite struct ForwardFailureTests {
    @Test func aRefusedConnectionNamesTheAddressAndSaysNothingListens() {
        let failure = ForwardFailure.transport(IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"), target: "127.0.0.1:9")
        #expect(failure == ForwardFailure(.connectionRefused, "connection refused by 127.0.0.1:9: nothing listens there"))
        let unnamed = ForwardFailure.transport(IOError(errnoCode: ECONNREFUSED, reason: "connect"), target: nil)
        #expect(unnamed == ForwardFailure(.connectionRefused, "connection refused: nothing listens there"))
    }

    @Test func unreachableTimedOutAndClosedEachGetTheirSentence() {
        #expect(
            ForwardFailure.transport(IOError(errnoCode: EHOSTUNREACH, reason: "connect"), target: "192.0.2.7:443")
                == ForwardFailure(.unreachable, "192.0.2.7:443 cannot be reached: no route to its network or host"))
        #expect(
            ForwardFailure.transport(IOError(errnoCode: ENOENT, reason: "connect"), target: "/run/postgresql/.s.PGSQL.5432")
                == ForwardFailure(.unreachable, "/run/postgresql/.s.PGSQL.5432 cannot be reached: no socket file is there"))
        #expect(
            ForwardFailure.transport(ChannelError.connectTimeout(.seconds(2)), target: "db.example.com:5432")
                == ForwardFailure(.timeout, "db.example.com:5432 did not answer in time"))
        #expect(
            ForwardFailure.transport(ChannelError.eof, target: nil) == ForwardFailure(.connectionClosed, "the server closed the connection without answering"))
    }

    @Test func anUntrustedCertificateSaysWhatToDo() {
        struct BoringText: Error, CustomStringConvertible {
            var description: String {
                "handshakeFailed(sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /src/ssl/handshake.cc:393]))"
            }
        }
        #expect(
            ForwardFailure.tls(BoringText(), target: "hooks.example.com:443")
                == ForwardFailure(
                    .tls,
                    "TLS handshake with hooks.example.com:443 failed (CERTIFICATE_VERIFY_FAILED): the server's certificate is not signed by a CA in the system's store or ca_file"
                ))
    }
}
