/*
 * LD_PRELOAD stand-in for /dev/uinput, for testing the keyboard output program (it types through
 * libevdev's uinput API) on machines without the uinput module, and without sending keys to the
 * machine's real session where it has one. Opening "/dev/uinput" gives a real fd on /dev/null,
 * so fd numbers stay real and unique; the shim answers the uinput ioctls on it the way the kernel
 * does and records every call. Every other path and fd passes straight to the C library.
 *
 * What libevdev (1.11 to 1.13, libevdev-uinput.c) does with LIBEVDEV_UINPUT_OPEN_MANAGED:
 * open("/dev/uinput", O_RDWR|O_CLOEXEC); UI_GET_VERSION, and since we answer 5, UI_DEV_SETUP's
 * path: UI_SET_EVBIT for every type (EV_SYN always), UI_SET_<type>BIT for every code (and
 * UI_ABS_SETUP per axis), UI_SET_PROPBIT per property, UI_DEV_SETUP, UI_DEV_CREATE, then
 * UI_GET_SYSNAME. When UI_GET_SYSNAME succeeds libevdev takes
 * /sys/devices/virtual/input/<name> as the syspath and scandir()s it for the event node; the
 * folder not existing only leaves the devnode NULL, and creation still succeeds, so no /sys
 * stand-in is needed. libevdev_uinput_destroy: UI_DEV_DESTROY, then close.
 *
 * Environment:
 *   PASSTAP_UINPUT_LOG  a file each call on a uinput fd is appended to as one JSON line, e.g.
 *                       {"op":"setup","fd":5,"name":"PassTap keyboard","bustype":3,...} or
 *                       {"op":"event","fd":5,"type":1,"code":30,"value":1}. Ops: open, version,
 *                       set_evbit, set_keybit (and set_relbit, set_absbit, ..., set_propbit:
 *                       "value"), abs_setup, phys, setup, create, sysname, event, destroy,
 *                       close; unknown_ioctl ("request") and rejected_write ("length") for calls
 *                       the kernel would refuse, which fail with EINVAL as there. Without it the
 *                       shim records nothing but answers the same.
 *
 * Not caught: fopen("/dev/uinput") (glibc opens inside itself) and a relative path through openat.
 *
 * Build: cc -shared -fPIC -O2 -o uinput_shim.so uinput_shim.c -ldl
 * Use:   LD_PRELOAD=$PWD/uinput_shim.so PASSTAP_UINPUT_LOG=/tmp/uinput.jsonl program
 * scripts/passtaprig/uinput.py builds it and reads the log; scripts/rig/test_uinput_shim.py.
 */
#define _GNU_SOURCE
/* Fortified headers define open() inline, which would clash with ours. */
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define UINPUT_PATH "/dev/uinput"
/* What UI_GET_SYSNAME answers: a name no real device on a test machine is likely to have. */
#define SYSNAME "input99"
/* uinput fds open at once; a program makes one or two devices. */
#define MAX_DEVICES 32

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_open_2)(const char *, int);
static int (*real_open64_2)(const char *, int);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_close)(int);

static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void resolve(void)
{
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_open_2 = dlsym(RTLD_NEXT, "__open_2");
    real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
    real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    real_write = dlsym(RTLD_NEXT, "write");
    real_close = dlsym(RTLD_NEXT, "close");
}

/* Held for the fd table and each log line, so lines from threads never interleave. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void take_lock(void)
{
    pthread_mutex_lock(&lock);
}

static void release_lock(void)
{
    pthread_mutex_unlock(&lock);
}

/* A child forked while another thread held the lock would find it held forever, and hang in its
 * first write() before exec; holding it across fork() makes both sides start with it free. */
__attribute__((constructor)) static void start(void)
{
    pthread_once(&resolved, resolve);
    pthread_atfork(take_lock, release_lock, release_lock);
}

/* Set while this thread is inside the shim: its own open/write/close of the log (and anything the
 * C library does for it) must reach the real calls, and must not take the lock a second time. */
static __thread int inside;

struct device {
    int fd; /* -1: free */
    int created;
};
static struct device devices[MAX_DEVICES] = {[0 ... MAX_DEVICES - 1] = {-1, 0}};

static struct device *device_for(int fd)
{
    if (fd < 0) return NULL;
    for (int i = 0; i < MAX_DEVICES; i++)
        if (devices[i].fd == fd) return &devices[i];
    return NULL;
}

/* Appends `length` bytes of `text` to `out` as the inside of a JSON string. Valid UTF-8 is kept;
 * a byte that is not part of it is written as \u00XX (its Latin-1 reading), so a line always
 * parses. `out` needs 6 bytes per input byte, plus one. */
static void json_string(char *out, const unsigned char *text, size_t length)
{
    size_t i = 0;
    while (i < length) {
        unsigned char c = text[i];
        if (c == '"' || c == '\\') {
            *out++ = '\\';
            *out++ = (char)c;
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7F) {
            out += sprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        if (c < 0x80) {
            *out++ = (char)c;
            i++;
            continue;
        }
        /* A UTF-8 sequence: its length from the lead byte, then that many continuation bytes. */
        size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        size_t k = 1;
        while (n != 0 && k < n && i + k < length && (text[i + k] & 0xC0) == 0x80) k++;
        if (n != 0 && k == n) {
            memcpy(out, text + i, n);
            out += n;
            i += n;
        } else {
            out += sprintf(out, "\\u%04x", c);
            i++;
        }
    }
    *out = '\0';
}

/* Appends one JSON line, {"op":"<op>","fd":<fd><rest>}, to $PASSTAP_UINPUT_LOG with one
 * write(), so a reader never sees half a line. Opened per line: the program may close fds it does
 * not know, and the environment is read when it matters. Caller holds the lock. */
static void record(const char *op, int fd, const char *rest)
{
    const char *path = getenv("PASSTAP_UINPUT_LOG");
    if (path == NULL || *path == '\0') return;
    char line[1024];
    int length = snprintf(line, sizeof line, "{\"op\":\"%s\",\"fd\":%d%s}\n", op, fd, rest ? rest : "");
    if (length < 0 || (size_t)length >= sizeof line) return;
    int saved = errno;
    int log = real_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log >= 0) {
        ssize_t ignored = real_write(log, line, (size_t)length);
        (void)ignored;
        real_close(log);
    }
    errno = saved;
}

static void record_value(const char *op, int fd, const char *key, long value)
{
    char rest[64];
    snprintf(rest, sizeof rest, ",\"%s\":%ld", key, value);
    record(op, fd, rest);
}

/* The shim's open: a /dev/null fd remembered as a uinput device, or -1 with errno. */
static int open_device(void)
{
    int fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    pthread_mutex_lock(&lock);
    struct device *free_slot = NULL;
    for (int i = 0; i < MAX_DEVICES && free_slot == NULL; i++)
        if (devices[i].fd == -1) free_slot = &devices[i];
    if (free_slot == NULL) {
        pthread_mutex_unlock(&lock);
        real_close(fd);
        errno = EMFILE;
        return -1;
    }
    free_slot->fd = fd;
    free_slot->created = 0;
    record("open", fd, NULL);
    pthread_mutex_unlock(&lock);
    return fd;
}

static int is_uinput(const char *path)
{
    return path != NULL && strcmp(path, UINPUT_PATH) == 0;
}

/* open_device for an open of /dev/uinput, with the shim's own calls (its /dev/null) passed
 * through while it runs. */
static int open_device_once(void)
{
    inside = 1;
    int fd = open_device();
    inside = 0;
    return fd;
}

/* The mode argument exists only with O_CREAT or O_TMPFILE (open(2)). */
#define MODE_ARGUMENT(flags, mode)                                 \
    mode_t mode = 0;                                               \
    if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) { \
        va_list arguments;                                         \
        va_start(arguments, flags);                                \
        mode = va_arg(arguments, mode_t);                          \
        va_end(arguments);                                         \
    }

#define SHIM_OPEN(name, real)                                      \
    int name(const char *path, int flags, ...)                     \
    {                                                              \
        pthread_once(&resolved, resolve);                          \
        MODE_ARGUMENT(flags, mode)                                 \
        if (!inside && is_uinput(path)) return open_device_once(); \
        return real(path, flags, mode);                            \
    }

#define SHIM_OPENAT(name, real)                                    \
    int name(int directory, const char *path, int flags, ...)      \
    {                                                              \
        pthread_once(&resolved, resolve);                          \
        MODE_ARGUMENT(flags, mode)                                 \
        if (!inside && is_uinput(path)) return open_device_once(); \
        return real(directory, path, flags, mode);                 \
    }

/* The fortified opens (_FORTIFY_SOURCE callers): no mode argument. */
#define SHIM_OPEN_2(name, real)                                    \
    int name(const char *path, int flags)                          \
    {                                                              \
        pthread_once(&resolved, resolve);                          \
        if (!inside && is_uinput(path)) return open_device_once(); \
        return real(path, flags);                                  \
    }

SHIM_OPEN(open, real_open)
SHIM_OPEN(open64, real_open64)
SHIM_OPENAT(openat, real_openat)
SHIM_OPENAT(openat64, real_openat64)
SHIM_OPEN_2(__open_2, real_open_2)
SHIM_OPEN_2(__open64_2, real_open64_2)

/* Copies `name` into the caller's buffer as the kernel's uinput_str_to_user does: at most `size`
 * bytes, NUL included, and the count copied as the answer. */
static int copy_string(void *buffer, size_t size, const char *name)
{
    size_t length = strlen(name) + 1;
    if (length > size) length = size;
    if (length == 0) return 0;
    memcpy(buffer, name, length);
    ((char *)buffer)[length - 1] = '\0';
    return (int)length;
}

/* One ioctl on a uinput fd; caller holds the lock. */
static int device_ioctl(struct device *device, unsigned long request, void *argument)
{
    int fd = device->fd;
    char rest[600];

    /* The UI_SET_*BIT requests take their value as the argument itself. */
    static const struct {
        unsigned long request;
        const char *op;
    } set_bits[] = {
        {UI_SET_EVBIT, "set_evbit"},   {UI_SET_KEYBIT, "set_keybit"}, {UI_SET_RELBIT, "set_relbit"},
        {UI_SET_ABSBIT, "set_absbit"}, {UI_SET_MSCBIT, "set_mscbit"}, {UI_SET_LEDBIT, "set_ledbit"},
        {UI_SET_SNDBIT, "set_sndbit"}, {UI_SET_FFBIT, "set_ffbit"},   {UI_SET_SWBIT, "set_swbit"},
        {UI_SET_PROPBIT, "set_propbit"},
    };
    for (size_t i = 0; i < sizeof set_bits / sizeof set_bits[0]; i++) {
        if (request == set_bits[i].request) {
            record_value(set_bits[i].op, fd, "value", (long)(unsigned long)argument);
            return 0;
        }
    }

    switch (request) {
    case UI_GET_VERSION:
        record("version", fd, NULL);
        *(unsigned int *)argument = 5;
        return 0;
    case UI_DEV_SETUP: {
        const struct uinput_setup *setup = argument;
        char name[UINPUT_MAX_NAME_SIZE * 6 + 1];
        json_string(name, (const unsigned char *)setup->name, strnlen(setup->name, UINPUT_MAX_NAME_SIZE));
        snprintf(rest, sizeof rest,
                 ",\"name\":\"%s\",\"bustype\":%u,\"vendor\":%u,\"product\":%u,\"version\":%u,\"ff_effects_max\":%u",
                 name, setup->id.bustype, setup->id.vendor, setup->id.product, setup->id.version,
                 setup->ff_effects_max);
        record("setup", fd, rest);
        return 0;
    }
    case UI_ABS_SETUP: {
        const struct uinput_abs_setup *abs = argument;
        snprintf(rest, sizeof rest,
                 ",\"code\":%u,\"minimum\":%d,\"maximum\":%d,\"fuzz\":%d,\"flat\":%d,\"resolution\":%d", abs->code,
                 abs->absinfo.minimum, abs->absinfo.maximum, abs->absinfo.fuzz, abs->absinfo.flat,
                 abs->absinfo.resolution);
        record("abs_setup", fd, rest);
        return 0;
    }
    case UI_SET_PHYS: {
        char phys[256 * 6 + 1];
        const char *text = argument;
        json_string(phys, (const unsigned char *)text, strnlen(text, 256));
        snprintf(rest, sizeof rest, ",\"phys\":\"%.*s\"", (int)(sizeof rest - 16), phys);
        record("phys", fd, rest);
        return 0;
    }
    case UI_DEV_CREATE:
        record("create", fd, NULL);
        device->created = 1;
        return 0;
    case UI_DEV_DESTROY:
        record("destroy", fd, NULL);
        device->created = 0;
        return 0;
    }

    /* UI_GET_SYSNAME carries the buffer's size in the request, so compare the rest. */
    if (_IOC_DIR(request) == _IOC_READ && _IOC_TYPE(request) == UINPUT_IOCTL_BASE && _IOC_NR(request) == 44) {
        record("sysname", fd, NULL);
        return copy_string(argument, _IOC_SIZE(request), SYSNAME);
    }

    record_value("unknown_ioctl", fd, "request", (long)request);
    errno = EINVAL;
    return -1;
}

int ioctl(int fd, unsigned long request, ...)
{
    pthread_once(&resolved, resolve);
    va_list arguments;
    va_start(arguments, request);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    if (!inside) {
        pthread_mutex_lock(&lock);
        struct device *device = device_for(fd);
        if (device != NULL) {
            inside = 1;
            int answer = device_ioctl(device, request, argument);
            inside = 0;
            pthread_mutex_unlock(&lock);
            return answer;
        }
        pthread_mutex_unlock(&lock);
    }
    return real_ioctl(fd, request, argument);
}

ssize_t write(int fd, const void *buffer, size_t count)
{
    pthread_once(&resolved, resolve);
    if (!inside) {
        pthread_mutex_lock(&lock);
        struct device *device = device_for(fd);
        if (device != NULL) {
            inside = 1;
            ssize_t answer;
            /* As the kernel's uinput_write: before UI_DEV_CREATE (or after UI_DEV_DESTROY) a write
             * is the legacy struct uinput_user_dev setup, which the shim does not offer (it
             * answered version 5); after it, whole input_events, a partial one at the end left. */
            if (!device->created || count < sizeof(struct input_event)) {
                record_value("rejected_write", fd, "length", (long)count);
                answer = -1;
            } else {
                size_t events = count / sizeof(struct input_event);
                for (size_t i = 0; i < events; i++) {
                    struct input_event event;
                    char rest[96];
                    memcpy(&event, (const char *)buffer + i * sizeof event, sizeof event);
                    snprintf(rest, sizeof rest, ",\"type\":%u,\"code\":%u,\"value\":%d", event.type, event.code,
                             event.value);
                    record("event", fd, rest);
                }
                answer = (ssize_t)(events * sizeof(struct input_event));
            }
            inside = 0;
            pthread_mutex_unlock(&lock);
            if (answer == -1) errno = EINVAL;
            return answer;
        }
        pthread_mutex_unlock(&lock);
    }
    return real_write(fd, buffer, count);
}

int close(int fd)
{
    pthread_once(&resolved, resolve);
    if (!inside) {
        pthread_mutex_lock(&lock);
        struct device *device = device_for(fd);
        if (device != NULL) {
            inside = 1;
            /* Closing the fd tears a still-created device down in the kernel, without a
             * UI_DEV_DESTROY; "created" says whether that happened. */
            record("close", fd, device->created ? ",\"created\":true" : ",\"created\":false");
            device->fd = -1;
            device->created = 0;
            inside = 0;
        }
        pthread_mutex_unlock(&lock);
    }
    return real_close(fd);
}
