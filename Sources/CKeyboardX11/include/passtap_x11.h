// The X11 side of `passtap keyboard`: the server's keymap, and key presses sent through XTEST.
//
// No X library is linked: a headless till must not pull libX11 in just because the binary can
// also type into an X session. libX11.so.6, libX11-xcb.so.1, libxkbcommon-x11.so.0 and
// libXtst.so.6 are opened with dlopen by passtap_x11_open, and no X header is needed to build
// this target. libxkbcommon.so.0 itself is linked: the keymap's lookups (which keycode and level
// give a character) are X-free and shared with the other backends.
//
// One thread uses a passtap_x11 at a time. Xlib's error handler is process-wide: while a
// display is open, X protocol errors are recorded (and reported by passtap_x11_sync) instead of
// ending the process as Xlib's default handler does. A lost connection to the server still goes
// to Xlib's I/O error handler, which ends the process.

#ifndef PASSTAP_X11_H
#define PASSTAP_X11_H

#include <stddef.h>
#include <stdint.h>
#include <xkbcommon/xkbcommon.h>

typedef struct passtap_x11 passtap_x11;

// Opens the X display `display_name` (NULL: $DISPLAY), after dlopen-ing the four libraries above
// (once per process; they stay loaded). Checks that the server has XKB 1.0 or later and XTEST.
// On failure returns NULL and writes one line (NUL-terminated, cut to error_len) into `error`:
// the library or symbol that is missing, the display that cannot be opened, or the extension
// that is missing. `error` may be NULL when error_len is 0.
passtap_x11 *passtap_x11_open(const char *display_name, char *error, size_t error_len);

// The X server's live core keyboard keymap (xkb_x11_keymap_new_from_device), compiled in `ctx`;
// a new reference for the caller to xkb_keymap_unref. NULL on failure. It is a snapshot: after
// the layout changes (setxkbmap, a layout switch in the desktop), ask again.
struct xkb_keymap *passtap_x11_keymap(passtap_x11 *x, struct xkb_context *ctx);

// Presses (down = 1) or releases (down = 0) the X keycode `keycode` (xkb keycodes are X
// keycodes: evdev's code + 8) through XTestFakeKeyEvent, and flushes it to the server, so that a
// caller's pause between keys is a pause on the server too. Returns 0, or -1 when `keycode` is
// outside the server's range (which would be an X error) or XTEST refuses it. Errors the server
// reports later show up in passtap_x11_sync.
int passtap_x11_key(passtap_x11 *x, uint32_t keycode, int down);

// XSync: returns once the server has handled every key sent so far. 0, or -1 when the server
// reported an X error for any request since the last passtap_x11_sync (or the open).
int passtap_x11_sync(passtap_x11 *x);

// The window that has X input focus (XGetInputFocus), for logs and tests: 0 (None) if none, 1
// (PointerRoot) when the focus follows the pointer, as on a server without a window manager.
unsigned long passtap_x11_focus(passtap_x11 *x);

// Closes the display and frees `x` (NULL is allowed); puts back the error handler that was set
// before passtap_x11_open. The libraries stay loaded.
void passtap_x11_close(passtap_x11 *x);

#endif
