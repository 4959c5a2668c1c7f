#ifndef PASSTAP_CZLIB_SHIM_H
#define PASSTAP_CZLIB_SHIM_H
#include <zlib.h>
#endif
