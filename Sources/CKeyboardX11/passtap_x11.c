// passtap_x11.h's backend: Xlib, XTEST and xkbcommon-x11 through dlopen (the header says why).
// The function types below are the libraries' own, with Display * and xcb_connection_t * as
// void *: their ABI is a pointer either way, and no X header is needed to build.

#include "passtap_x11.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Xlib's XErrorEvent, field for field (X11/Xlib.h): the error handler is given one.
typedef struct {
    int type;
    void *display;
    unsigned long resourceid;  // XID
    unsigned long serial;
    unsigned char error_code;
    unsigned char request_code;
    unsigned char minor_code;
} x_error_event;

typedef int (*x_error_handler)(void *display, x_error_event *event);

// libX11.so.6
typedef void *(*XOpenDisplay_fn)(const char *name);
typedef char *(*XDisplayName_fn)(const char *name);
typedef int (*XCloseDisplay_fn)(void *display);
typedef int (*XSync_fn)(void *display, int discard);
typedef int (*XFlush_fn)(void *display);
typedef int (*XGetInputFocus_fn)(void *display, unsigned long *focus, int *revert_to);
typedef int (*XDisplayKeycodes_fn)(void *display, int *min_keycode, int *max_keycode);
typedef x_error_handler (*XSetErrorHandler_fn)(x_error_handler handler);
// libX11-xcb.so.1
typedef void *(*XGetXCBConnection_fn)(void *display);
// libXtst.so.6
typedef int (*XTestQueryExtension_fn)(void *display, int *event_base, int *error_base, int *major, int *minor);
typedef int (*XTestFakeKeyEvent_fn)(void *display, unsigned int keycode, int is_press, unsigned long delay);
// libxkbcommon-x11.so.0 (the flags and compile flags are enums: int-sized)
typedef int (*xkb_x11_setup_xkb_extension_fn)(void *connection, uint16_t major, uint16_t minor, int flags,
                                              uint16_t *major_out, uint16_t *minor_out, uint8_t *base_event_out,
                                              uint8_t *base_error_out);
typedef int32_t (*xkb_x11_get_core_keyboard_device_id_fn)(void *connection);
typedef struct xkb_keymap *(*xkb_x11_keymap_new_from_device_fn)(struct xkb_context *context, void *connection,
                                                                int32_t device_id, enum xkb_keymap_compile_flags flags);

// The oldest XKB that xkbcommon-x11 can use (XKB_X11_MIN_MAJOR/MINOR_XKB_VERSION).
enum { XKB_MIN_MAJOR = 1, XKB_MIN_MINOR = 0 };
// Xlib's CurrentTime: XTEST sends the event now.
enum { X_CURRENT_TIME = 0 };

static struct {
    int loaded;
    XOpenDisplay_fn XOpenDisplay;
    XDisplayName_fn XDisplayName;
    XCloseDisplay_fn XCloseDisplay;
    XSync_fn XSync;
    XFlush_fn XFlush;
    XGetInputFocus_fn XGetInputFocus;
    XDisplayKeycodes_fn XDisplayKeycodes;
    XSetErrorHandler_fn XSetErrorHandler;
    XGetXCBConnection_fn XGetXCBConnection;
    XTestQueryExtension_fn XTestQueryExtension;
    XTestFakeKeyEvent_fn XTestFakeKeyEvent;
    xkb_x11_setup_xkb_extension_fn xkb_x11_setup_xkb_extension;
    xkb_x11_get_core_keyboard_device_id_fn xkb_x11_get_core_keyboard_device_id;
    xkb_x11_keymap_new_from_device_fn xkb_x11_keymap_new_from_device;
} x;

struct passtap_x11 {
    void *display;
    void *connection;  // the display's own xcb connection (xkbcommon-x11 speaks XCB)
    int min_keycode, max_keycode;
    int error_seen;  // an X error arrived since the last passtap_x11_sync
    struct passtap_x11 *next;
};

// The open displays, for the error handler to find whose error it is; and the handler that was
// there before the first open, put back after the last close.
static struct passtap_x11 *open_displays;
static x_error_handler previous_handler;

static void set_error(char *error, size_t error_len, const char *format, ...) {
    if (error == NULL || error_len == 0) {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_len, format, arguments);
    va_end(arguments);
}

// Xlib's default handler prints the error and exits: a key the server refused must not end the
// client. The error is kept for passtap_x11_sync.
static int record_error(void *display, x_error_event *event) {
    (void)event;
    for (struct passtap_x11 *open = open_displays; open != NULL; open = open->next) {
        if (open->display == display) {
            open->error_seen = 1;
        }
    }
    return 0;
}

// dlopen's RTLD_LOCAL: the symbols are looked up here only, never interposed on the process.
static void *open_library(const char *name, char *error, size_t error_len) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        set_error(error, error_len, "cannot load %s (%s)", name, dlerror());
    }
    return handle;
}

static int find_symbol(void *handle, const char *library, const char *symbol, void **out, char *error,
                       size_t error_len) {
    *out = dlsym(handle, symbol);
    if (*out == NULL) {
        set_error(error, error_len, "%s has no symbol %s", library, symbol);
        return -1;
    }
    return 0;
}

// Loads the four libraries once per process and keeps them: a later open finds them loaded, and
// no function pointer outlives its library.
static int load_libraries(char *error, size_t error_len) {
    if (x.loaded) {
        return 0;
    }
    static const char *const names[] = {"libX11.so.6", "libX11-xcb.so.1", "libXtst.so.6", "libxkbcommon-x11.so.0"};
    void *handles[4];
    for (size_t i = 0; i < 4; i++) {
        handles[i] = open_library(names[i], error, error_len);
        if (handles[i] == NULL) {
            return -1;
        }
    }
#define SYMBOL(library, name) \
    if (find_symbol(handles[library], names[library], #name, (void **)&x.name, error, error_len) != 0) return -1
    SYMBOL(0, XOpenDisplay);
    SYMBOL(0, XDisplayName);
    SYMBOL(0, XCloseDisplay);
    SYMBOL(0, XSync);
    SYMBOL(0, XFlush);
    SYMBOL(0, XGetInputFocus);
    SYMBOL(0, XDisplayKeycodes);
    SYMBOL(0, XSetErrorHandler);
    SYMBOL(1, XGetXCBConnection);
    SYMBOL(2, XTestQueryExtension);
    SYMBOL(2, XTestFakeKeyEvent);
    SYMBOL(3, xkb_x11_setup_xkb_extension);
    SYMBOL(3, xkb_x11_get_core_keyboard_device_id);
    SYMBOL(3, xkb_x11_keymap_new_from_device);
#undef SYMBOL
    x.loaded = 1;
    return 0;
}

passtap_x11 *passtap_x11_open(const char *display_name, char *error, size_t error_len) {
    set_error(error, error_len, "%s", "");
    if (load_libraries(error, error_len) != 0) {
        return NULL;
    }
    void *display = x.XOpenDisplay(display_name);
    if (display == NULL) {
        // XDisplayName: what NULL meant ($DISPLAY), or "" when $DISPLAY is unset.
        const char *name = x.XDisplayName(display_name);
        if (name == NULL || name[0] == '\0') {
            set_error(error, error_len, "cannot open the X display: DISPLAY is not set");
        } else {
            set_error(error, error_len, "cannot open the X display \"%s\"", name);
        }
        return NULL;
    }
    void *connection = x.XGetXCBConnection(display);
    uint16_t major = 0, minor = 0;
    if (!x.xkb_x11_setup_xkb_extension(connection, XKB_MIN_MAJOR, XKB_MIN_MINOR, 0, &major, &minor, NULL, NULL)) {
        set_error(error, error_len, "the X display \"%s\" has no XKB extension %d.%d or later (it has %u.%u)",
                  x.XDisplayName(display_name), XKB_MIN_MAJOR, XKB_MIN_MINOR, major, minor);
        x.XCloseDisplay(display);
        return NULL;
    }
    int event_base, error_base, xtest_major, xtest_minor;
    if (!x.XTestQueryExtension(display, &event_base, &error_base, &xtest_major, &xtest_minor)) {
        set_error(error, error_len, "the X display \"%s\" has no XTEST extension", x.XDisplayName(display_name));
        x.XCloseDisplay(display);
        return NULL;
    }
    passtap_x11 *opened = calloc(1, sizeof *opened);
    if (opened == NULL) {
        set_error(error, error_len, "out of memory");
        x.XCloseDisplay(display);
        return NULL;
    }
    opened->display = display;
    opened->connection = connection;
    x.XDisplayKeycodes(display, &opened->min_keycode, &opened->max_keycode);
    if (open_displays == NULL) {
        previous_handler = x.XSetErrorHandler(record_error);
    }
    opened->next = open_displays;
    open_displays = opened;
    return opened;
}

struct xkb_keymap *passtap_x11_keymap(passtap_x11 *opened, struct xkb_context *ctx) {
    int32_t device = x.xkb_x11_get_core_keyboard_device_id(opened->connection);
    if (device == -1) {
        return NULL;
    }
    return x.xkb_x11_keymap_new_from_device(ctx, opened->connection, device, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

int passtap_x11_key(passtap_x11 *opened, uint32_t keycode, int down) {
    // A keycode outside the server's range is a BadValue error from the server: refused here
    // instead, where the caller learns which key it was.
    if (keycode < (uint32_t)opened->min_keycode || keycode > (uint32_t)opened->max_keycode) {
        return -1;
    }
    if (!x.XTestFakeKeyEvent(opened->display, keycode, down ? 1 : 0, X_CURRENT_TIME)) {
        return -1;
    }
    x.XFlush(opened->display);
    return 0;
}

int passtap_x11_sync(passtap_x11 *opened) {
    x.XSync(opened->display, 0);
    int failed = opened->error_seen;
    opened->error_seen = 0;
    return failed ? -1 : 0;
}

unsigned long passtap_x11_focus(passtap_x11 *opened) {
    unsigned long focus = 0;
    int revert_to = 0;
    x.XGetInputFocus(opened->display, &focus, &revert_to);
    return focus;
}

void passtap_x11_close(passtap_x11 *opened) {
    if (opened == NULL) {
        return;
    }
    x.XCloseDisplay(opened->display);
    for (struct passtap_x11 **link = &open_displays; *link != NULL; link = &(*link)->next) {
        if (*link == opened) {
            *link = opened->next;
            break;
        }
    }
    if (open_displays == NULL) {
        x.XSetErrorHandler(previous_handler);
    }
    free(opened);
}
