// libxkbcommon (libxkbcommon-dev): keymaps, their state machine and the Compose tables, for
// passtap keyboard's layouts (Sources/Keyboard). Not an X library: it reads the XKB data files.
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
