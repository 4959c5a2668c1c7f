// NETLINK_SOCK_DIAG's inet_diag (sock_diag(7)): the kernel's own headers, not copies of their
// declarations, for the owner of a loopback TCP peer (PassTapHTTP's LoopbackPeerOwner). Only the
// kernel's headers: the C library's would be a second copy of what Glibc declares.
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

/// NLMSG_HDRLEN: the aligned length of a netlink message header (a macro Swift cannot import).
static inline __u32 passtap_nlmsg_hdrlen(void) { return NLMSG_HDRLEN; }

/// NLMSG_ALIGN(length): `length` rounded up to netlink's alignment.
static inline __u32 passtap_nlmsg_align(__u32 length) { return NLMSG_ALIGN(length); }

/// One inet_diag request as it goes on the wire: the netlink header, then the request.
struct passtap_inet_diag_request {
    struct nlmsghdr header;
    struct inet_diag_req_v2 request;
};
_Static_assert(sizeof(struct passtap_inet_diag_request) == NLMSG_HDRLEN + sizeof(struct inet_diag_req_v2),
               "the request must follow the header with no padding");
