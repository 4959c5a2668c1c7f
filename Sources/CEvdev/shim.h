// libevdev (libevdev-dev): a virtual keyboard through /dev/uinput, for passtap keyboard's uinput
// output (Sources/Keyboard).
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input-event-codes.h>
