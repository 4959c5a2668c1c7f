/* The fan-out bench's subscribers: N connections to passtapd's socket in one process, each
 * subscribed to events, read through one epoll set, every event line timestamped on arrival.
 *
 *   fanout_receiver SOCKET N KINDS_JSON [OBSERVERS]
 *
 * KINDS_JSON is the `kinds` array of the events.subscribe params, e.g. ["read.result"]. The last
 * OBSERVERS (default 0) of the N connections are made as uid and gid 65534 (nobody:nogroup, no
 * supplementary groups: the receiver sets its effective ids for those connect calls, then takes
 * root back), so passtapd sees peers without the `read` role: their event lines must carry
 * "withheld":"access" and the others' must not (a wrong one fails the run).
 * Connects N sockets (raising RLIMIT_NOFILE to its hard limit), sends one events.subscribe on
 * each, waits for every answer, then prints {"ready":N}. From then on, for each event line it
 * records when it arrived: the CLOCK_MONOTONIC time epoll_wait returned with that socket ready
 * (taken once per wakeup, before any read, so the receiver's own reading does not push later
 * sockets' times back; a line that completes in a later wakeup gets that wakeup's time). Once
 * all N sockets have an event's line it prints
 *   {"seq":S,"count":N,"first_ns":A,"last_ns":B,"busy_ns":C}
 * with C the time the receiver spent reading and parsing (outside epoll_wait) between A and B:
 * C well below B - A means the receiver was waiting for passtapd, not the other way round.
 * An events.dropped notification prints {"dropped":true,"subscriber":I}. When stdin
 * ends it prints {"done":true,"lines":L,"dropped":D,"min_events":m,"max_events":M,"incomplete":K}
 * (events per subscriber, and events that not every subscriber got) and exits 0. A socket the
 * daemon closes, an answer that is not a result, or a malformed line: a message on stderr and
 * exit 1. Everything printed is one JSON object per line, flushed at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK (256 * 1024)
#define MAX_LINE (64 * 1024 + 2)

struct subscriber {
    int fd;
    int observer; /* connected as nobody: its VAS entries must be withheld */
    char *carry; /* the start of a line not ended yet */
    size_t carried;
    unsigned long long events; /* event lines received */
    int answered;             /* the events.subscribe answer came */
};

struct pending {
    unsigned long long seq;
    long long first_ns, last_ns, busy_at_first;
    int count;
    int used;
};

static struct subscriber *subscribers;
static int subscriber_count;
static struct pending *pendings; /* indexed by seq % pending_slots */
static size_t pending_slots = 4096;
static long long busy_total; /* ns spent outside epoll_wait since the ready line */
static unsigned long long lines_total, dropped_total;
static const uid_t nobody = 65534;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "fanout_receiver: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void fail(const char *message, int index) {
    fprintf(stderr, "fanout_receiver: subscriber %d: %s\n", index, message);
    exit(1);
}

static void raise_fd_limit(int needed) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) die("getrlimit");
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) die("setrlimit");
    if ((long long)limit.rlim_cur < needed + 16) {
        fprintf(stderr, "fanout_receiver: RLIMIT_NOFILE %llu is too low for %d sockets\n",
                (unsigned long long)limit.rlim_cur, needed);
        exit(1);
    }
}

static int connect_to(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "fanout_receiver: socket path too long\n");
        exit(1);
    }
    strcpy(address.sun_path, path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    return fd;
}

static void write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        text += written;
        length -= (size_t)written;
    }
}

/* The number after "seq": in a line, or -1. */
static long long seq_of(const char *line, size_t length) {
    const char *key = memmem(line, length, "\"seq\":", 6);
    if (!key) return -1;
    const char *p = key + 6, *end = line + length;
    long long value = 0;
    if (p >= end || *p < '0' || *p > '9') return -1;
    while (p < end && *p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    return value;
}

static void handle_line(int index, const char *line, size_t length, long long arrived) {
    struct subscriber *s = &subscribers[index];
    if (length == 0) return;
    if (!s->answered) {
        if (!memmem(line, length, "\"result\"", 8)) {
            fprintf(stderr, "fanout_receiver: subscriber %d: events.subscribe was answered: %.*s\n", index,
                    (int)(length > 400 ? 400 : length), line);
            exit(1);
        }
        s->answered = 1;
        return;
    }
    lines_total++;
    if (memmem(line, length, "\"method\":\"events.dropped\"", 25)) {
        dropped_total++;
        printf("{\"dropped\":true,\"subscriber\":%d}\n", index);
        fflush(stdout);
        return;
    }
    if (!memmem(line, length, "\"method\":\"event\"", 16)) fail("a line that is neither an event nor events.dropped", index);
    int withheld = memmem(line, length, "\"withheld\":\"access\"", 19) != NULL;
    if (withheld != s->observer)
        fail(s->observer ? "a subscriber without the read role got a pass" : "a subscriber with the read role got it withheld", index);
    long long seq = seq_of(line, length);
    if (seq < 0) fail("an event line without a seq", index);
    s->events++;
    struct pending *p = &pendings[(size_t)seq % pending_slots];
    if (!p->used || p->seq != (unsigned long long)seq) {
        if (p->used) {
            /* An older event in this slot never reached every subscriber. */
            printf("{\"seq\":%llu,\"count\":%d,\"incomplete\":true}\n", p->seq, p->count);
            fflush(stdout);
        }
        *p = (struct pending){.seq = (unsigned long long)seq, .first_ns = arrived, .last_ns = arrived,
                              .busy_at_first = busy_total, .count = 0, .used = 1};
    }
    p->count++;
    if (arrived > p->last_ns) p->last_ns = arrived;
    if (arrived < p->first_ns) p->first_ns = arrived;
    if (p->count == subscriber_count) {
        printf("{\"seq\":%llu,\"count\":%d,\"first_ns\":%lld,\"last_ns\":%lld,\"busy_ns\":%lld}\n", p->seq, p->count,
               p->first_ns, p->last_ns, busy_total - p->busy_at_first);
        fflush(stdout);
        p->used = 0;
    }
}

/* Reads everything the socket holds; every line completed is handled with `arrived`. */
static void drain(int index, char *chunk, long long arrived) {
    struct subscriber *s = &subscribers[index];
    for (;;) {
        ssize_t got = read(s->fd, chunk, READ_CHUNK);
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            die("read");
        }
        if (got == 0) fail("passtapd closed the connection", index);
        char *start = chunk, *end = chunk + got;
        for (;;) {
            char *newline = memchr(start, '\n', (size_t)(end - start));
            if (!newline) break;
            if (s->carried > 0) {
                size_t length = (size_t)(newline - start);
                if (s->carried + length > MAX_LINE) fail("a line over 64 KiB", index);
                memcpy(s->carry + s->carried, start, length);
                handle_line(index, s->carry, s->carried + length, arrived);
                s->carried = 0;
            } else {
                handle_line(index, start, (size_t)(newline - start), arrived);
            }
            start = newline + 1;
        }
        if (start < end) {
            size_t rest = (size_t)(end - start);
            if (!s->carry && !(s->carry = malloc(MAX_LINE))) die("malloc");
            if (s->carried + rest > MAX_LINE) fail("a line over 64 KiB", index);
            memcpy(s->carry + s->carried, start, rest);
            s->carried += rest;
        }
        if (got < READ_CHUNK) return;
    }
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: fanout_receiver SOCKET N KINDS_JSON [OBSERVERS]\n");
        return 64;
    }
    const char *path = argv[1];
    subscriber_count = atoi(argv[2]);
    int observers = argc == 5 ? atoi(argv[4]) : 0;
    if (subscriber_count < 1 || observers < 0 || observers > subscriber_count) {
        fprintf(stderr, "fanout_receiver: N must be at least 1, OBSERVERS between 0 and N\n");
        return 64;
    }
    raise_fd_limit(subscriber_count);
    subscribers = calloc((size_t)subscriber_count, sizeof *subscribers);
    pendings = calloc(pending_slots, sizeof *pendings);
    char *chunk = malloc(READ_CHUNK);
    if (!subscribers || !pendings || !chunk) die("calloc");
    char request[512];
    int request_length = snprintf(request, sizeof request,
                                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"events.subscribe\",\"params\":{\"kinds\":%s}}\n", argv[3]);
    if (request_length <= 0 || request_length >= (int)sizeof request) {
        fprintf(stderr, "fanout_receiver: KINDS_JSON too long\n");
        return 64;
    }

    int epoll = epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0) die("epoll_create1");
    for (int i = 0; i < subscriber_count; i++) {
        if (i == subscriber_count - observers) {
            /* The kernel records the connecting process's effective ids and groups (SO_PEERCRED,
             * SO_PEERGROUPS) at connect. */
            if (setgroups(0, NULL) != 0 || setegid(nobody) != 0 || seteuid(nobody) != 0) die("becoming nobody");
        }
        subscribers[i].observer = i >= subscriber_count - observers;
        subscribers[i].fd = connect_to(path);
        write_all(subscribers[i].fd, request, (size_t)request_length);
        if (fcntl(subscribers[i].fd, F_SETFL, O_NONBLOCK) != 0) die("fcntl");
        struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = (unsigned)i};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, subscribers[i].fd, &event) != 0) die("epoll_ctl");
    }
    if (observers > 0 && (seteuid(0) != 0 || setegid(0) != 0)) die("taking root back");
    struct epoll_event in = {.events = EPOLLIN, .data.u32 = (unsigned)subscriber_count};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, STDIN_FILENO, &in) != 0) die("epoll_ctl stdin");

    int answered = 0, ready_printed = 0;
    struct epoll_event *events = calloc((size_t)subscriber_count + 1, sizeof *events);
    if (!events) die("calloc");
    for (;;) {
        if (!ready_printed && answered == subscriber_count) {
            printf("{\"ready\":%d}\n", subscriber_count);
            fflush(stdout);
            ready_printed = 1;
        }
        int count = epoll_wait(epoll, events, subscriber_count + 1, -1);
        long long woke = now_ns();
        if (count < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int e = 0; e < count; e++) {
            unsigned index = events[e].data.u32;
            if (index == (unsigned)subscriber_count) {
                char sink[256];
                ssize_t got = read(STDIN_FILENO, sink, sizeof sink);
                if (got > 0) continue;
                unsigned long long lowest = ~0ULL, highest = 0;
                for (int i = 0; i < subscriber_count; i++) {
                    if (subscribers[i].events < lowest) lowest = subscribers[i].events;
                    if (subscribers[i].events > highest) highest = subscribers[i].events;
                }
                unsigned long long incomplete = 0;
                for (size_t slot = 0; slot < pending_slots; slot++) incomplete += pendings[slot].used ? 1 : 0;
                printf("{\"done\":true,\"lines\":%llu,\"dropped\":%llu,\"min_events\":%llu,\"max_events\":%llu,\"incomplete\":%llu}\n",
                       lines_total, dropped_total, lowest, highest, incomplete);
                fflush(stdout);
                return 0;
            }
            int was_answered = subscribers[index].answered;
            drain((int)index, chunk, woke);
            if (!was_answered && subscribers[index].answered) answered++;
            if (events[e].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) fail("passtapd closed the connection", (int)index);
        }
        if (ready_printed) busy_total += now_ns() - woke;
    }
}
